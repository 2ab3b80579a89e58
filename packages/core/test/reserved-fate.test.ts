// A reserved handle's own bookkeeping (`reserved-fate.ts`): what abandoning it does in each
// state, a claim it is asked to carry after its reservation ended, what may follow a delete,
// and which write errors leave its outcome unknown. On the memory store.
import { describe, expect, it, vi } from 'vitest';
import type { FinishClaim } from '../src/guard/finish-claims.js';
import type { ReservedFate } from '../src/guard/reserved-fate.js';
import {
  createFatesStore,
  FateError,
  FateErrorCode,
  type FateStore,
  MemoryBackend,
  type StoreBackend,
  type TxChange,
} from '../src/index.js';

/** A memory store whose backend's `write` throws `writeError` while it is set. */
async function setUp() {
  const memory = new MemoryBackend();
  const faults: { writeError?: Error } = {};
  const backend = new Proxy(memory, {
    get(target, key) {
      if (key === 'write' && faults.writeError) {
        const err = faults.writeError;
        return async () => {
          throw err;
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as StoreBackend;
  const store = await createFatesStore(backend);
  const held = async (status: 'SUBMITTED' | 'SUCCESSFUL' = 'SUBMITTED') => {
    const { id } = await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
    const fate = (await store.reserve(id)) as FateStore;
    if (status === 'SUCCESSFUL') {
      await fate.commit([{ op: 'setStatus', status: 'IN_PROGRESS' }]);
      await fate.commit([{ op: 'setStatus', status: 'SUCCESSFUL' }]);
    }
    return fate as ReservedFate;
  };
  return { store, faults, held };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e as FateError).code,
  );

const claimStub = () =>
  ({ cancel: vi.fn(), settle: vi.fn() }) as unknown as FinishClaim & {
    cancel: ReturnType<typeof vi.fn>;
  };

describe('a reserved handle', () => {
  it('is abandoned only while it holds its reservation, or its outcome is unknown', async () => {
    const { faults, held } = await setUp();
    const reserved = await held();
    reserved.abandon();
    expect(reserved.isReserved).toBe(false);
    expect(await codeOf(reserved.getStatus())).toBe(FateErrorCode.NOT_RESERVED);
    // deleted stays deleted: an unreserve after the delete is still fine
    const deleted = await held('SUCCESSFUL');
    await deleted.delete();
    deleted.abandon();
    expect(await codeOf(deleted.unreserve())).toBe('ok');
    // a write whose reply was lost leaves it unknown; abandoning it ends that
    const unknown = await held();
    faults.writeError = new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away');
    expect(await codeOf(unknown.setInfo('opName', 'x'))).toBe(FateErrorCode.STORE_UNAVAILABLE);
    faults.writeError = undefined;
    expect(unknown.outcomeUnknown).toBe(true);
    unknown.abandon();
    expect(unknown.outcomeUnknown).toBe(false);
    expect(await codeOf(unknown.getStatus())).toBe(FateErrorCode.NOT_RESERVED);
  });

  it('keeps its outcome known when a write fails for any other reason', async () => {
    const { faults, held } = await setUp();
    const fate = await held();
    faults.writeError = new FateError(FateErrorCode.PAYLOAD_TOO_LARGE, 'no room');
    expect(await codeOf(fate.setInfo('opName', 'x'))).toBe(FateErrorCode.PAYLOAD_TOO_LARGE);
    faults.writeError = undefined;
    expect([fate.isReserved, fate.outcomeUnknown]).toEqual([true, false]);
    await fate.setInfo('opName', 'y');
  });

  it('cancels a claim it is asked to carry once its reservation ended, and one it replaces', async () => {
    const { held } = await setUp();
    const fate = await held();
    const first = claimStub();
    const second = claimStub();
    fate.carry(first);
    fate.carry(second);
    expect(first.cancel).toHaveBeenCalledTimes(1);
    expect(second.cancel).not.toHaveBeenCalled();
    fate.abandon(); // ending it cancels the claim it carried
    expect(second.cancel).toHaveBeenCalledTimes(1);
    const late = claimStub();
    fate.carry(late);
    expect(late.cancel).toHaveBeenCalledTimes(1);
  });

  it('takes only unreserves after its record was deleted', async () => {
    const { held } = await setUp();
    const fate = await held('SUCCESSFUL');
    await fate.delete();
    expect(await codeOf(fate.commit([{ op: 'unreserve' }, { op: 'unreserve', deferMs: 5 }]))).toBe(
      'ok',
    );
    for (const changes of [
      [{ op: 'unreserve' }, { op: 'setStatus', status: 'FAILED' }],
      [null],
    ] as TxChange[][]) {
      expect(await codeOf(fate.commit(changes)), JSON.stringify(changes)).toBe(
        FateErrorCode.NOT_RESERVED,
      );
    }
    expect(await codeOf(fate.unreserve(-1))).toBe(FateErrorCode.INVALID_ARGUMENT);
  });
});
