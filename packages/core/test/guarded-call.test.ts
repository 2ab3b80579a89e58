// The guard's one way to call its backend (`guarded-call.ts`, `retry.ts`): errors mapped, a
// closed store refused, and an operation asked again while its reply is lost — three more
// times at most, after 20, 100 and 400 ms (the pauses are recorded, not waited).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { GuardedCall, toFateError } from '../src/guard/guarded-call.js';
import { FateError, FateErrorCode, type StoreBackend } from '../src/index.js';

const pauses = vi.hoisted(() => [] as number[]);
vi.mock('node:timers/promises', () => ({
  setTimeout: async (ms: number) => {
    pauses.push(ms);
  },
}));
beforeEach(() => {
  pauses.length = 0;
});

const away = () => new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away');
const backend = {} as StoreBackend;

/** A call failing with `errors` in turn, then answering `answer`; counts its attempts. */
function flaky(errors: unknown[], answer = 'done') {
  let attempts = 0;
  const fn = async () => {
    attempts++;
    const next = errors.shift();
    if (next !== undefined) throw next;
    return answer;
  };
  return { fn, attempts: () => attempts };
}

describe('toFateError', () => {
  it('keeps fate errors and programmer errors, and makes the rest an unavailable store', () => {
    for (const err of [away(), new TypeError('t'), new RangeError('r')]) {
      expect(toFateError(err, 'read failed')).toBe(err);
    }
    const cause = new Error('ECONNRESET');
    const mapped = toFateError(cause, 'read failed') as FateError;
    expect([mapped.code, mapped.message, mapped.cause]).toEqual([
      FateErrorCode.STORE_UNAVAILABLE,
      'read failed: ECONNRESET',
      cause,
    ]);
    expect((toFateError('gone', 'write failed') as FateError).message).toBe('write failed: gone');
  });
});

describe('GuardedCall', () => {
  it('maps what the backend throws, naming the operation, and refuses every call once closed', async () => {
    const caller = new GuardedCall(backend);
    await expect(
      caller.call('scan', async () => {
        throw new Error('socket closed');
      }),
    ).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
      message: 'scan failed: socket closed',
    });
    expect(await caller.call('scan', async (b) => b === backend)).toBe(true);
    caller.close();
    const fn = vi.fn(async () => 1);
    await expect(caller.call('scan', fn)).rejects.toMatchObject({
      code: 'FATE_CLOSED',
      message: 'scan: the store is closed',
    });
    await expect(caller.retried('scan', fn)).rejects.toMatchObject({ code: 'FATE_CLOSED' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('asks again while the reply is lost: three more times, after 20, 100 and 400 ms', async () => {
    const caller = new GuardedCall(backend);
    const twice = flaky([away(), away()]);
    expect(await caller.retried('write', twice.fn)).toBe('done');
    expect([twice.attempts(), pauses]).toEqual([3, [20, 100]]);
    pauses.length = 0;
    const never = flaky([away(), away(), away(), away(), away()]);
    await expect(caller.retried('write', never.fn)).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
    });
    expect([never.attempts(), pauses]).toEqual([4, [20, 100, 400]]);
  });

  it('does not ask again after any other error, and tells whether it asked again', async () => {
    const caller = new GuardedCall(backend);
    const refused = flaky([new FateError(FateErrorCode.NOT_RESERVED, 'no'), away()]);
    await expect(caller.retried('write', refused.fn)).rejects.toMatchObject({
      code: 'FATE_NOT_RESERVED',
    });
    expect(refused.attempts()).toBe(1);
    const afterLoss = flaky([away(), new FateError(FateErrorCode.NOT_RESERVED, 'no')]);
    await expect(caller.retried('write', afterLoss.fn)).rejects.toMatchObject({
      code: 'FATE_NOT_RESERVED',
    });
    const first = caller.retriedTelling('write', flaky([]).fn);
    expect([await first.answer, first.repeated]).toEqual(['done', false]);
    const again = caller.retriedTelling('write', flaky([away()]).fn);
    expect([await again.answer, again.repeated]).toEqual(['done', true]);
  });
});
