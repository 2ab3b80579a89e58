import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection } from '../store/context.js';
import { FAST_STORE, useEngines } from './engine-context.js';
import { script, scriptData } from './steps.js';

/**
 * Engine promises that the other groups leave unobserved; each case was added because an
 * engine mutant (`mutants/engine/`) survived without it.
 */
export function enginePromiseTests(target: ConformanceTarget): void {
  describe('engine promises', () => {
    const ctx = useEngines(target);

    it('releases a step that is not ready with its deferral stored, freeing its worker', async () => {
      const fate = await ctx.engine({ workers: 1 });
      const deferMs = 60_000;
      const { id } = await fate.seed(script(3, { deferMs, deferAt: 2 }), { opName: 'op' });
      const watcher = await ctx.client();
      await eventually(
        'the deferred transaction is released with its deferral',
        async () => {
          const view = await watcher.read(id);
          return !view.reservation && view.deferUntil > watcher.now() + deferMs / 2;
        },
        10_000,
      );
      expect(ctx.env.log.get(id)).toEqual(['call:1']);
      // the only worker is free: other work runs while the deferral lasts
      const other = await fate.seed(script(2), { opName: 'op' });
      expect((await fate.waitForCompletion(other.id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      expect(ctx.env.log.get(id)).toEqual(['call:1']);
    });

    it('refuses to cancel or delete a transaction that ran a step, while it waits on a deferral', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(3, { deferMs: 60_000, deferAt: 2 }), {
        opName: 'op',
      });
      await eventually(
        'step 2 asked to wait and the transaction is released',
        async () => ctx.env.deferred.has(id) && !(await fate.read(id)).reservation,
        10_000,
      );
      expect((await rejection(fate.cancel(id, { timeoutMs: 2_000 }))).code).toBe(
        'FATE_ILLEGAL_STATUS',
      );
      expect((await rejection(fate.delete(id, { timeoutMs: 2_000 }))).code).toBe(
        'FATE_ILLEGAL_STATUS',
      );
      const view = await fate.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.stack).toHaveLength(2);
      expect(view.info.error).toBeUndefined();
      // the refused calls let it go still deferred (step 2 waits its 60 s, not less), by the
      // store's clock, which is this host's here
      expect(view.deferUntil - Date.now()).toBeGreaterThan(30_000);
    });

    it('finishes the rollback of a transaction it finds FAILED_IN_PROGRESS, newest step first', async () => {
      const store = await ctx.client();
      const { id } = await store.seed({ step: scriptData(3), opName: 'op' });
      const held = await store.reserve(id);
      const next = (n: number) => ({ type: 'script', state: { n, total: 3 } });
      await held.commit([
        { op: 'setStatus', status: Status.IN_PROGRESS },
        { op: 'push', step: next(2) },
        { op: 'push', step: next(3) },
        { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
        { op: 'unreserve' },
      ]);
      const fate = await ctx.engine();
      expect((await fate.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(Status.FAILED);
      expect(ctx.env.log.get(id)).toEqual(['undo:3', 'undo:2', 'undo:1']);
      expect((await fate.read(id)).stack).toEqual([]);
    });

    it('cuts a wait over a day to a day, and says so', async () => {
      const day = 86_400_000;
      const warnings: string[] = [];
      const fate = await ctx.engine({
        onEvent: (type, event) => {
          if (type === 'warning' && 'message' in event) warnings.push(event.message);
        },
      });
      const { id } = await fate.seed(script(1, { deferMs: 3 * day }), { opName: 'op' });
      const watcher = await ctx.client();
      await eventually(
        'the transaction is released with its deferral',
        async () => (await watcher.read(id)).deferUntil > 0,
        10_000,
      );
      const until = (await watcher.read(id)).deferUntil - watcher.now();
      expect(until).toBeGreaterThan(day / 2);
      // The watcher's estimate of the store clock may trail the clock the engine's write was
      // stamped by (within a round trip; a CI run under load saw 1 ms): a day, not three.
      expect(until).toBeLessThanOrEqual(day + 1_000);
      expect(warnings.some((m) => /waiting a day instead/.test(m))).toBe(true);
    });

    it("records a failed step's error with its name and cause chain", async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(2, { failCallAt: 2, failCause: 'disk full' }), {
        opName: 'op',
      });
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error).toMatchObject({
        message: 'boom at 2',
        name: 'Error',
        cause: { message: 'disk full', name: 'TypeError' },
      });
    });

    it('keeps a finished transaction through age-off sweeps until its retention passed', async () => {
      const { store, faults } = await ctx.faultyClient();
      const fate = await ctx.engine({ store, retentionMs: 60_000, ageOffCheckMs: 100 });
      const { id } = await fate.seed(script(1), { opName: 'op' });
      expect((await fate.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      // an age-off sweep asks for what is due (through the backend's index, or a full list
      // where it has none): let three run after the finish
      const sweeps = () => (faults.calls.get('ageOffDue') ?? 0) + (faults.calls.get('list') ?? 0);
      const before = sweeps();
      await eventually('three age-off sweeps ran', async () => sweeps() >= before + 3, 10_000);
      expect((await fate.read(id)).status).toBe(Status.SUCCESSFUL);
    });

    it("aborts a running step's signal when its instance's lease lapses, and runs the step again", async () => {
      const { store, faults } = await ctx.faultyClient({ ...FAST_STORE, livenessTimeoutMs: 600 });
      const fate = await ctx.engine({ store, heartbeatMs: 100 });
      // a 2 s step: the lapse (about 0.6 s in) must cut it short, not wait for its end
      const { id } = await fate.seed(script(1, { sleepMs: 2_000, sleepAt: 1, abortable: true }), {
        opName: 'op',
      });
      await eventually('the step is running', async () => ctx.env.calls.has(`${id}:1`), 10_000);
      faults.inject('fail', 'heartbeat', 8); // 800 ms without a renewal: the 550 ms lease lapses
      await eventually(
        'the step was aborted and runs again once the lease is back',
        async () => (ctx.env.calls.get(`${id}:1`) ?? 0) >= 2,
        10_000,
      );
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.SUCCESSFUL); // interrupted, not failed
      expect(result.error).toBeUndefined();
      expect(ctx.env.overlaps).toEqual([]);
    });
  });
}
