// Retrying a failed call (`step-retry.ts`) on the memory store: the count is kept in the
// transaction (so any client goes on with it), the backoff is a stored deferral, and only
// errors a retry could fix are retried.
import { randomUUID } from 'node:crypto';
import {
  createFatesStore,
  FateError,
  FateErrorCode,
  type FateStore,
  type FatesStore,
  type JsonValue,
  MemoryBackend,
  type Repo,
  type RetryPolicy,
} from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import { resolveRetryPolicy } from '../src/engine/retry-policy.js';
import { type RetryHost, retryLater as retryLaterSrc } from '../src/engine/step-retry.js';

/** The unit from source, given handles of the built package (the same shapes). */
const retryLater = (h: RetryHost, fate: FateStore, step: Repo<never>, err: unknown) =>
  retryLaterSrc(h, fate as never, step as never, err);

const repo = (retry?: RetryPolicy, type = 's'): Repo<never> => ({
  type,
  ...(retry ? { retry } : {}),
  isReady: () => 0,
  call: () => undefined,
  undo: () => undefined,
  state: (): JsonValue => ({}),
});

function host(opPolicy?: RetryPolicy) {
  const resolved = opPolicy && resolveRetryPolicy(opPolicy, 'op');
  return {
    opPolicy: () => resolved,
    retried: vi.fn<RetryHost['retried']>(),
    warn: vi.fn<RetryHost['warn']>(),
    overdue: vi.fn<RetryHost['overdue']>(),
  };
}

async function twoClients(): Promise<[FatesStore, FatesStore]> {
  const space = randomUUID();
  return [
    await createFatesStore(new MemoryBackend(space)),
    await createFatesStore(new MemoryBackend(space)),
  ];
}

const policy: RetryPolicy = { attempts: 3, backoffMs: 1_000, jitter: 0 };

describe('retrying a failed call', () => {
  it('stores each failed attempt and releases with the backoff; any client goes on counting', async () => {
    const [a, b] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const h = host();
    const first = await a.reserve(id);
    const before = a.now();
    expect(await retryLater(h, first, repo(policy), new Error('one'))).toBe(true);
    expect(first.isReserved).toBe(false);
    let view = await b.read(id);
    expect(view.deferUntil).toBeGreaterThanOrEqual(before + 1_000);
    expect(view.info.retry).toEqual({
      depth: 1,
      type: 's',
      attempts: 1,
      maxAttempts: 3,
      errors: [{ message: 'one', name: 'Error' }],
    });
    expect(h.retried).toHaveBeenCalledWith('s', 1, 1_000, expect.any(Error));
    // another client (engine) takes it and goes on from the stored count
    expect(await retryLater(h, await b.reserve(id), repo(policy), new Error('two'))).toBe(true);
    expect(h.retried).toHaveBeenLastCalledWith('s', 2, 2_000, expect.any(Error));
    const last = await a.reserve(id);
    expect(await retryLater(h, last, repo(policy), new Error('three'))).toBe(false);
    expect(last.isReserved).toBe(true); // the caller fails it now
    view = await b.read(id);
    expect(view.info.retry?.attempts).toBe(3);
    expect(view.info.retry?.errors.map((e) => e.message)).toEqual(['one', 'two', 'three']);
  });

  it('counts a step afresh when another step (depth or type) failed before', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    await retryLater(host(), await a.reserve(id), repo(policy), new Error('one'));
    const h = host();
    await retryLater(h, await a.reserve(id), repo(policy, 'other'), new Error('x'));
    expect(h.retried).toHaveBeenCalledWith('other', 1, 1_000, expect.any(Error));
  });

  it("takes the step's own policy over its op's, and none when neither has one", async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const h = host({ attempts: 5, backoffMs: 7, jitter: 0 });
    await retryLater(h, await a.reserve(id), repo({ attempts: 2, backoffMs: 3, jitter: 0 }), 1);
    expect(h.retried).toHaveBeenCalledWith('s', 1, 3, 1);
    const fresh = (await a.seed({ step: { type: 's', state: {} }, opName: 'op' })).id;
    await retryLater(h, await a.reserve(fresh), repo(), 1);
    expect(h.retried).toHaveBeenLastCalledWith('s', 1, 7, 1);
    const none = (await a.seed({ step: { type: 's', state: {} }, opName: 'op' })).id;
    const held = await a.reserve(none);
    expect(await retryLater(host(), held, repo(), new Error('x'))).toBe(false);
    expect((await a.read(none)).info.retry).toBeUndefined();
  });

  it.each([
    FateErrorCode.INVALID_ARGUMENT,
    FateErrorCode.UNKNOWN_STEP,
    FateErrorCode.STACK_OVERFLOW,
    FateErrorCode.PAYLOAD_TOO_LARGE,
    FateErrorCode.CORRUPT_DATA,
  ])('never retries %s, a mistake a retry cannot fix', async (code) => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const error = new FateError(code, 'no');
    expect(await retryLater(host(), await a.reserve(id), repo(policy), error)).toBe(false);
  });

  it('keeps the last five errors, short and without stacks', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const many = { attempts: 20, backoffMs: 0 };
    for (let i = 1; i <= 8; i++) {
      await retryLater(
        host(),
        await a.reserve(id),
        repo(many),
        new Error(`${i} ${'x'.repeat(900)}`),
      );
    }
    const errors = (await a.read(id)).info.retry?.errors ?? [];
    expect(errors.map((e) => e.message.split(' ')[0])).toEqual(['4', '5', '6', '7', '8']);
    expect(errors.every((e) => e.message.length <= 501 && e.stack === undefined)).toBe(true);
  });

  it('warns and does not retry when the step declares a policy that is not valid', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const h = host();
    const held = await a.reserve(id);
    expect(await retryLater(h, held, repo({ attempts: -1 }), new Error('x'))).toBe(false);
    expect(h.warn).toHaveBeenCalled();
  });

  it('counts afresh, errors and all, a step of the same type at another depth', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    await retryLater(host(), await a.reserve(id), repo(policy), new Error('below'));
    const deeper = await a.reserve(id);
    await deeper.commit([
      { op: 'setStatus', status: 'IN_PROGRESS' },
      { op: 'push', step: { type: 's', state: {} } },
    ]);
    expect(await retryLater(host(), deeper, repo(policy), new Error('above'))).toBe(true);
    expect((await a.read(id)).info.retry).toStrictEqual({
      depth: 2,
      type: 's',
      attempts: 1,
      maxAttempts: 3,
      errors: [{ message: 'above', name: 'Error' }],
    });
  });

  it('fails at once an error its retryOn does not accept, counting the attempt', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const only = repo({ attempts: 3, backoffMs: 0, retryOn: [TypeError] });
    expect(await retryLater(host(), await a.reserve(id), only, new RangeError('no'))).toBe(false);
    expect((await a.read(id)).info.retry?.attempts).toBe(1);
  });

  it('cuts a message only past 500 characters, and keeps no name or code a throw lacked', async () => {
    const [a] = await twoClients();
    const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const many = repo({ attempts: 5, backoffMs: 0 });
    await retryLater(host(), await a.reserve(id), many, new Error('m'.repeat(500)));
    await retryLater(host(), await a.reserve(id), many, 'a plain string');
    const coded = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    await retryLater(host(), await a.reserve(id), many, coded);
    // a step may throw anything, undefined too: it is retried like any error its policy takes
    expect(await retryLater(host(), await a.reserve(id), many, undefined)).toBe(true);
    const errors = (await a.read(id)).info.retry?.errors;
    expect(errors?.slice(0, 3)).toStrictEqual([
      { message: 'm'.repeat(500), name: 'Error' },
      { message: 'a plain string' },
      { message: 'reset', name: 'Error', code: 'ECONNRESET' },
    ]);
    expect(errors).toHaveLength(4);
  });

  it('fails without the count when there is no room for it, and passes a store fault on', async () => {
    const [a] = await twoClients();
    const tooLarge = new FateError(FateErrorCode.PAYLOAD_TOO_LARGE, 'no room');
    const away = new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away');
    /** A reserved handle whose writes of the count throw `error`. */
    const refusing = async (error: FateError) => {
      const { id } = await a.seed({ step: { type: 's', state: {} }, opName: 'op' });
      const fate = await a.reserve(id);
      return Object.assign(Object.create(fate) as FateStore, {
        getInfo: fate.getInfo.bind(fate),
        getStack: fate.getStack.bind(fate),
        commit: async () => {
          throw error;
        },
        setInfo: async () => {
          throw error;
        },
      });
    };
    // a retry's write (commit), and the final count's (setInfo, the attempts used up)
    for (const p of [policy, { attempts: 1 }]) {
      const h = host();
      expect(await retryLater(h, await refusing(tooLarge), repo(p), new Error('x'))).toBe(false);
      expect(h.warn).toHaveBeenCalledWith(
        'the retry count cannot be stored (record too large)',
        tooLarge,
      );
      expect(h.retried).not.toHaveBeenCalled();
      await expect(retryLater(host(), await refusing(away), repo(p), new Error('x'))).rejects.toBe(
        away,
      );
    }
  });
});
