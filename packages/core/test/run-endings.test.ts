// How a run ends when something in its ending goes wrong: a call its signal interrupted, a
// transaction with no step, a stack or an info that cannot be read, an error that cannot be
// recorded. `runTransaction` driven by hand on the memory store (runner-harness.ts); cases
// for survivors of the Stryker `runner` slice (docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { isInterrupted, runTransaction } from '../src/engine/runner.js';
import { type FateStore, Status, type TxChange } from '../src/index.js';
import { inProgress, reserved, setUp } from './runner-harness.js';

/** `fate` with some of its methods replaced; the rest act on the real handle. */
function patched(fate: FateStore, overrides: Partial<FateStore>): FateStore {
  return new Proxy(fate, {
    get(target, key) {
      const own = (overrides as Record<PropertyKey, unknown>)[key];
      if (own !== undefined) return own;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A transaction of `names` set FAILED_IN_PROGRESS, unreserved: a rollback to resume. */
async function rollingBack(s: Awaited<ReturnType<typeof setUp>>, names: string[]) {
  const id = await inProgress(s.store, s.h, names);
  const f = await reserved(s.store, id);
  await f.commit([{ op: 'setStatus', status: Status.FAILED_IN_PROGRESS }, { op: 'unreserve' }]);
  return id;
}

describe('the end of a run', () => {
  it('keeps what a call threw as the cause when its signal interrupted it', async () => {
    const { store, h, ctx } = await setUp();
    const controller = new AbortController();
    const id = await inProgress(store, h, ['cut']);
    const cause = new Error('cut short');
    h.behaviours.set('cut', {
      call: () => {
        controller.abort();
        throw cause;
      },
    });
    const err = await runTransaction(ctx, await reserved(store, id), controller.signal).catch(
      (e: unknown) => e,
    );
    expect(isInterrupted(err)).toBe(true);
    expect((err as Error).cause).toBe(cause);
    expect((await store.read(id)).status).toBe(Status.IN_PROGRESS);
  });

  it('fails a transaction left with no step to run, naming why', async () => {
    const { store, h, ctx, signal } = await setUp();
    // the guard never lets a stack of IN_PROGRESS go empty: a backend that lost it shows one
    const id = await inProgress(store, h, ['only']);
    const fate = patched(await reserved(store, id), {
      top: async () => undefined,
      getStack: async () => [],
    });
    expect(await runTransaction(ctx, fate, signal)).toBe(Status.FAILED);
    const view = await store.read(id);
    expect([view.status, view.reservation]).toEqual([Status.FAILED, undefined]);
    expect(view.info.error?.code).toBe('FATE_STACK_EMPTY');
    expect(h.log).toEqual([]);
  });

  it('records a stack it cannot read as the rollback’s error, and ends FAILED undoing nothing', async () => {
    const s = await setUp();
    const id = await rollingBack(s, ['one', 'two']);
    const fate = patched(await reserved(s.store, id), {
      getStack: async () => {
        throw new Error('the stack is garbled');
      },
    });
    expect(await runTransaction(s.ctx, fate, s.signal)).toBe(Status.FAILED);
    expect(s.h.log).toEqual([]);
    const view = await s.store.read(id);
    expect([view.status, view.reservation]).toEqual([Status.FAILED, undefined]);
    expect(view.info.error?.undoErrors?.map((e) => e.message)).toEqual(['the stack is garbled']);
  });

  it('ends a rollback FAILED and unreserved when it cannot read whether to clean up', async () => {
    const s = await setUp();
    const id = await rollingBack(s, ['one']);
    const real = await reserved(s.store, id);
    const fate = patched(real, {
      getInfo: (async (key: string) => {
        if (key === 'autoClean') throw new Error('unreadable');
        return real.getInfo(key as 'error');
      }) as FateStore['getInfo'],
    });
    expect(await runTransaction(s.ctx, fate, s.signal)).toBe(Status.FAILED);
    expect(s.h.log).toEqual(['undo:one']);
    const view = await s.store.read(id);
    expect([view.status, view.reservation, view.stack.length]).toEqual([
      Status.FAILED,
      undefined,
      0,
    ]);
  });

  it('rolls back all the same when the error cannot be recorded, and says so', async () => {
    const s = await setUp();
    const warnings: string[] = [];
    const ctx = { ...s.ctx, warn: (message: string) => void warnings.push(message) };
    const id = await inProgress(s.store, s.h, ['one', 'throws']);
    s.h.behaviours.set('throws', {
      call: () => {
        throw new Error('the step failed');
      },
    });
    const real = await reserved(s.store, id);
    const fate = patched(real, {
      commit: async (changes: readonly TxChange[]) => {
        if (changes.some((c) => c.op === 'setInfo' && c.key === 'error'))
          throw new Error('no room for the error');
        return real.commit(changes);
      },
    });
    expect(await runTransaction(ctx, fate, s.signal)).toBe(Status.FAILED);
    expect(warnings).toEqual(['the error could not be recorded; rolling back without it']);
    expect(s.h.log).toEqual(['isReady:throws', 'call:throws', 'undo:throws', 'undo:one']);
    const view = await s.store.read(id);
    expect([view.status, view.stack.length, view.info.error]).toEqual([
      Status.FAILED,
      0,
      undefined,
    ]);
  });
});
