import { type FateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { lapsingEngine, useEngines } from '../engine/engine-context.js';
import { script } from '../engine/steps.js';
import type { ConformanceTarget } from '../fixture.js';
import { eventually } from '../store/context.js';

/**
 * The runner's step loop between a judgement and the action it justifies: a readiness
 * probe that takes long, a release before anything ran, a probe that throws.
 */
export function runnerFaultTests(target: ConformanceTarget): void {
  describe('faults: the step loop', () => {
    const ctx = useEngines(target);

    it('starts no call once its lease lapsed while isReady was pending', async () => {
      const { faults, lapse, fate } = await lapsingEngine(ctx); // lease 550 ms
      const { id } = await fate.seed(script(1, { readyGate: 'probe', readyGateAt: 1 }), {
        opName: 'op',
      });
      const probe = ctx.env.gate('probe');
      await eventually('isReady is pending', async () => probe.entered, 10_000);
      faults.inject('fail', 'heartbeat', 8); // the lease lapses while the probe is out
      await eventually('the lease lapsed', async () => lapse.lapsed(), 5_000);
      probe.open();
      expect((await fate.waitForCompletion(id, { timeoutMs: 15_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      // the run that lapsed let it go; a later run called it, with a live signal
      expect(ctx.env.log.get(id)).toEqual(['call:1']);
    });

    it('starts no repeated call (idempotencyCheck) once its lease lapsed while the repeat isReady was pending', async () => {
      const { faults, lapse, fate } = await lapsingEngine(ctx, { idempotencyCheck: true });
      const { id } = await fate.seed(
        script(1, { readyGate: 'repeat', readyGateAt: 1, readyGateAfterCall: true }),
        { opName: 'op' },
      );
      const probe = ctx.env.gate('repeat');
      await eventually('the repeat isReady is pending', async () => probe.entered, 10_000);
      faults.inject('fail', 'heartbeat', 8); // the lease lapses while the probe is out
      await eventually('the lease lapsed', async () => lapse.lapsed(), 5_000);
      probe.open();
      expect((await fate.waitForCompletion(id, { timeoutMs: 15_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      // every call began with a live lease and signal; none began after its run was stopped
      const log = ctx.env.log.get(id) ?? [];
      expect(log.filter((e) => e.includes('aborted at start'))).toEqual([]);
      expect(log.length).toBeGreaterThanOrEqual(2);
    });

    it('gives back as SUBMITTED what it released before any step ran, so it can be cancelled', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(2, { deferMs: 60_000 }), { opName: 'op' });
      await eventually(
        'its first step deferred itself',
        async () => {
          const view = await fate.read(id);
          return view.deferUntil > 0 && !view.reservation;
        },
        10_000,
      );
      expect((await fate.read(id)).status).toBe(Status.SUBMITTED);
      await fate.cancel(id, { timeoutMs: 5_000 });
      const view = await fate.read(id);
      expect(view.status).toBe(Status.FAILED);
      expect(ctx.env.log.get(id)).toBeUndefined(); // nothing ran, nothing was undone
    });

    it('gives back as SUBMITTED what a shutdown stopped before its first call', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(1, { readyGate: 'held', readyGateAt: 1 }), {
        opName: 'op',
      });
      const held = ctx.env.gate('held');
      await eventually('isReady is pending', async () => held.entered, 10_000);
      const stopped = fate.shutdown(5_000);
      await new Promise((r) => setTimeout(r, 50));
      held.open();
      await stopped;
      const view = await (await ctx.client()).read(id as FateId);
      expect(view.status).toBe(Status.SUBMITTED);
      expect(view.reservation).toBeUndefined();
      expect(ctx.env.log.get(id)).toBeUndefined();
    });

    it('gives back as SUBMITTED what a shutdown interrupted in an isReady that honours its signal', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(
        script(1, { readyGate: 'aborted', readyGateAt: 1, readyAbortable: true }),
        { opName: 'op' },
      );
      const probe = ctx.env.gate('aborted');
      await eventually('isReady is pending', async () => probe.entered, 10_000);
      await fate.shutdown(100); // then its signal is aborted and the probe gives up
      const view = await (await ctx.client()).read(id as FateId);
      expect(ctx.env.log.get(id)).toBeUndefined(); // nothing ran
      expect(view.reservation).toBeUndefined();
      expect(view.status).toBe(Status.SUBMITTED);
    });

    it.each([
      [1, []],
      [3, ['call:1', 'call:2', 'undo:2', 'undo:1']],
    ] as const)(
      'does not undo a step whose isReady threw before its call ever began (step %i)',
      async (at, log) => {
        const fate = await ctx.engine();
        const { id } = await fate.seed(script(4, { failReadyAt: at }), { opName: 'op' });
        const result = await fate.waitForCompletion(id, { timeoutMs: 15_000 });
        expect(result.status).toBe(Status.FAILED);
        expect(result.error?.message).toBe(`not ready at ${at}`);
        expect(ctx.env.log.get(id) ?? []).toEqual(log);
        expect((await fate.read(id)).stack).toEqual([]);
      },
    );
  });
}
