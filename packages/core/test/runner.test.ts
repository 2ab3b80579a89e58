// The step loop (`runTransaction`) driven by hand on the memory store: what it does with a
// handle it should not run, a rollback that must stop, an `isReady` that throws on a resumed
// transaction, and a store fault raised inside a step. Cases for survivors of the Stryker
// `runner` slice (docs/mutation.md); the engine suite covers the loop's usual paths.
import { describe, expect, it } from 'vitest';
import { isInterrupted, runTransaction } from '../src/engine/runner.js';
import { FateError, FateErrorCode, type FateId, type FateStore, Status } from '../src/index.js';
import { inProgress, reserved, seedProbe, setUp } from './runner-harness.js';

describe('runTransaction', () => {
  it('gives back untouched a handle whose transaction is not runnable (a stale scan)', async () => {
    const { store, h, ctx, signal } = await setUp();
    const held = await seedProbe(store, h, 'held', { held: true });
    const done = await inProgress(store, h, ['done']);
    const d = await reserved(store, done);
    await d.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
    for (const [id, status] of [
      [held, Status.NEW],
      [done, Status.SUCCESSFUL],
    ] as const) {
      expect(await runTransaction(ctx, await reserved(store, id), signal)).toBe('released');
      const view = await store.read(id);
      expect([view.status, view.reservation, view.stack.length]).toEqual([status, undefined, 1]);
    }
    expect(h.log).toEqual([]);
  });

  it('keeps the deferral of a transaction a scan named before it was deferred', async () => {
    const { store, h, ctx, signal } = await setUp();
    const id = await seedProbe(store, h, 'later', { delayMs: 60_000 });
    expect(await runTransaction(ctx, await reserved(store, id), signal)).toBe('deferred');
    expect(h.log).toEqual([]);
    const view = await store.read(id);
    expect(view.status).toBe(Status.SUBMITTED);
    expect(view.deferUntil).toBeGreaterThan(store.now() + 50_000);
  });

  it('sets a transaction reserved without starting it IN_PROGRESS before its call', async () => {
    const { store, h, ctx, signal } = await setUp();
    const id = await seedProbe(store, h, 'a');
    const statusDuringCall = new Promise<Status>((resolve) =>
      h.behaviours.set('a', {
        call: () => {
          void store.read(id).then((v) => resolve(v.status));
          return undefined;
        },
      }),
    );
    expect(await runTransaction(ctx, await reserved(store, id), signal)).toBe(Status.SUCCESSFUL);
    expect(await statusDuringCall).toBe(Status.IN_PROGRESS);
  });

  it('undoes the top step of a resumed transaction whose isReady throws (its call may have run)', async () => {
    const { store, h, ctx, signal } = await setUp();
    const id = await inProgress(store, h, ['one', 'two']);
    h.behaviours.set('two', {
      isReady: () => {
        throw new Error('not ready, ever');
      },
    });
    expect(await runTransaction(ctx, await reserved(store, id), signal)).toBe(Status.FAILED);
    expect(h.log).toEqual(['isReady:two', 'undo:two', 'undo:one']);
  });

  it('does not undo a first step whose isReady threw before anything ran', async () => {
    const { store, h, ctx, signal } = await setUp();
    const fails = { isReady: () => Promise.reject(new Error('never ready')) };
    // reserved to start it, and reserved without starting it
    for (const start of [true, false]) {
      const id = await seedProbe(store, h, 'first');
      h.behaviours.set('first', fails);
      h.log.length = 0;
      const fate = start ? await store.tryReserve(id, { start: true }) : await store.reserve(id);
      expect(await runTransaction(ctx, fate as FateStore, signal)).toBe(Status.FAILED);
      expect(h.log, `start: ${start}`).toEqual(['isReady:first']);
    }
  });

  it('runs no isReady once stopping, and no call once the lease lapsed during isReady', async () => {
    const { store, h, ctx, signal } = await setUp();
    const id = await seedProbe(store, h, 'a');
    h.flags.stopping = true;
    const first = await store.tryReserve(id, { start: true });
    expect(await runTransaction(ctx, first as FateStore, signal)).toBe('halted');
    expect(h.log).toEqual([]);
    h.flags.stopping = false;
    h.behaviours.set('a', {
      isReady: () => {
        h.flags.leaseValid = false; // a pause: another engine may hold it by now
        return 0;
      },
    });
    const second = await store.tryReserve(id, { start: true });
    expect(await runTransaction(ctx, second as FateStore, signal)).toBe('halted');
    expect(h.log).toEqual(['isReady:a']);
    // given back as found: nothing of it ever ran
    expect((await store.read(id)).status).toBe(Status.SUBMITTED);
  });

  it('records that the top step of a resumed transaction could not be rebuilt, to undo', async () => {
    const { store, h, ctx, signal } = await setUp();
    const id = await inProgress(store, h, ['one']);
    const f = await reserved(store, id);
    await f.push({ type: 'gone', state: {} }); // a step type this engine no longer has
    await f.unreserve();
    expect(await runTransaction(ctx, await reserved(store, id), signal)).toBe(Status.FAILED);
    expect(h.log).toEqual(['undo:one']);
    const { error } = (await store.read(id)).info;
    expect(error?.undoErrors).toHaveLength(1);
    expect(error?.undoErrors?.[0]?.message).toMatch(/gone/);
  });

  for (const stop of ['stopping', 'lease lapsed', 'signal aborted'] as const) {
    it(`stops a rollback between steps once ${stop}, leaving the rest to the next holder`, async () => {
      const { store, h, ctx } = await setUp();
      const controller = new AbortController();
      const id = await inProgress(store, h, ['one', 'two', 'three']);
      const f = await reserved(store, id);
      await f.commit([{ op: 'setStatus', status: Status.FAILED_IN_PROGRESS }, { op: 'unreserve' }]);
      h.behaviours.set('three', {
        undo: () => {
          if (stop === 'stopping') h.flags.stopping = true;
          else if (stop === 'lease lapsed') h.flags.leaseValid = false;
          else controller.abort();
        },
      });
      const fate = await reserved(store, id);
      expect(await runTransaction(ctx, fate, controller.signal)).toBe('halted');
      expect(h.log).toEqual(['undo:three']);
      const view = await store.read(id);
      expect([view.status, view.stack.length, view.reservation]).toEqual([
        Status.FAILED_IN_PROGRESS,
        2,
        undefined,
      ]);
    });
  }

  it('ends an undo its signal interrupted as interrupted, recording no undo error', async () => {
    const { store, h, ctx } = await setUp();
    const controller = new AbortController();
    const id = await inProgress(store, h, ['one', 'two']);
    const f = await reserved(store, id);
    await f.commit([{ op: 'setStatus', status: Status.FAILED_IN_PROGRESS }, { op: 'unreserve' }]);
    const cause = new Error('aborted mid-undo');
    h.behaviours.set('two', {
      undo: () => {
        controller.abort();
        throw cause;
      },
    });
    const run = runTransaction(ctx, await reserved(store, id), controller.signal);
    const err = await run.catch((e: unknown) => e);
    expect(isInterrupted(err)).toBe(true);
    expect((err as Error).cause).toBe(cause);
    const view = await store.read(id);
    expect([view.status, view.stack.length, view.info.error]).toEqual([
      Status.FAILED_IN_PROGRESS,
      2,
      undefined,
    ]);
  });

  it('gives the transaction up, failing nothing, when a step or an undo meets a store fault', async () => {
    const { store, h, ctx, signal } = await setUp();
    const fault = () => {
      throw new FateError(FateErrorCode.STORE_UNAVAILABLE, 'the store went away');
    };
    // the runner leaves a store fault's reservation to its caller, who gives it back
    const runThenRelease = async (id: FateId) => {
      const fate = await reserved(store, id);
      const err = await runTransaction(ctx, fate, signal).catch((e: unknown) => e);
      if (fate.isReserved) await fate.unreserve();
      return err;
    };
    // in a call: the transaction stays IN_PROGRESS with no error, to run again once released
    const running = await inProgress(store, h, ['calls']);
    h.behaviours.set('calls', { call: fault });
    expect(await runThenRelease(running)).toMatchObject({ code: 'FATE_STORE_UNAVAILABLE' });
    const view = await store.read(running);
    expect([view.status, view.info.error]).toEqual([Status.IN_PROGRESS, undefined]);
    // in the return value read as it succeeds: likewise
    h.behaviours.set('calls', { returnValue: fault });
    expect(await runThenRelease(running)).toMatchObject({ code: 'FATE_STORE_UNAVAILABLE' });
    expect((await store.read(running)).status).toBe(Status.IN_PROGRESS);
    // in an undo: not recorded as the undo's error, and the rollback stops there
    const undoing = await inProgress(store, h, ['one', 'undoes']);
    const f = await reserved(store, undoing);
    await f.commit([{ op: 'setStatus', status: Status.FAILED_IN_PROGRESS }, { op: 'unreserve' }]);
    h.behaviours.set('undoes', { undo: fault });
    expect(await runThenRelease(undoing)).toMatchObject({ code: 'FATE_STORE_UNAVAILABLE' });
    const rolled = await store.read(undoing);
    expect([rolled.status, rolled.stack.length, rolled.info.error]).toEqual([
      Status.FAILED_IN_PROGRESS,
      2,
      undefined,
    ]);
    expect(h.log).not.toContain('undo:one');
  });
});
