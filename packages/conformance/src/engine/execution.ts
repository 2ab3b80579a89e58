import { MAX_STACK_DEPTH, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { allDone, useEngines } from './engine-context.js';
import { script } from './steps.js';

const undone = (total: number) => Array.from({ length: total }, (_, i) => `undo:${total - i}`);

export function executionTests(target: ConformanceTarget): void {
  describe('execution and undo', () => {
    const ctx = useEngines(target);

    it.each([1, 5])('completes a %i-step transaction with its return value', async (total) => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(total, { result: { total } }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result).toEqual({ id, status: Status.SUCCESSFUL, returnValue: { total } });
      expect(ctx.env.log.get(id)).toEqual(Array.from({ length: total }, (_, i) => `call:${i + 1}`));
      expect((await fate.read(id)).stack).toHaveLength(total);
    });

    // 2 s, not 200 ms: under CI's load ten quick steps on PostgreSQL once took longer than
    // 200 ms (stop 39's check), and the order below is only promised within the deferral
    it('does not let a step deferring 2 s hold up other transactions', async () => {
      const fate = await ctx.engine({ workers: 1 });
      const seededAt = Date.now();
      const slow = await fate.seed(script(1, { deferMs: 2_000 }), { opName: 'slow' });
      const quick = await Promise.all(
        [1, 2, 3, 4, 5].map(() => fate.seed(script(2), { opName: 'quick' })),
      );
      const quickDone = await allDone(
        fate,
        quick.map((q) => q.id),
        30_000,
      );
      expect(quickDone.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
      const slowResult = await fate.waitForCompletion(slow.id, { timeoutMs: 30_000 });
      expect(slowResult.status).toBe(Status.SUCCESSFUL);
      expect(Date.now() - seededAt).toBeGreaterThanOrEqual(2_000);
      expect(ctx.env.log.get(slow.id)).toEqual(['call:1']);
      // the only worker ran every quick step while the slow one waited out its deferral
      const slowCall = ctx.env.order.indexOf(`${slow.id} call:1`);
      for (const q of quick) expect(ctx.env.order.indexOf(`${q.id} call:2`)).toBeLessThan(slowCall);
    });

    it('undoes 3, 2, 1 after a failure in call at step 3, ends FAILED and keeps the error', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(5, { failCallAt: 3 }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.message).toBe('boom at 3');
      expect(result.error?.stack).toContain('boom at 3');
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2', 'call:3', ...undone(3)]);
      expect((await fate.read(id)).stack).toEqual([]);
    });

    it('undoes 2, 1 after a failure in isReady at step 3, whose call never began', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(5, { failReadyAt: 3 }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.message).toBe('not ready at 3');
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2', ...undone(2)]);
    });

    it('goes on undoing when an undo throws, and records that error too', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(5, { failCallAt: 3, throwUndoAt: 2 }), {
        opName: 'op',
      });
      const result = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:2', 'call:3', ...undone(3)]);
      expect(result.error?.message).toBe('boom at 3');
      expect(result.error?.undoErrors?.map((e) => e.message)).toEqual(['undo failed at 2']);
    });

    it(`fails and undoes a transaction that reaches step ${MAX_STACK_DEPTH + 1}`, async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(MAX_STACK_DEPTH + 5), { opName: 'deep' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 60_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.name).toBe('FateError');
      expect(result.error?.message).toMatch(/100 steps/);
      const log = ctx.env.log.get(id) ?? [];
      expect(log.slice(0, MAX_STACK_DEPTH)).toEqual(
        Array.from({ length: MAX_STACK_DEPTH }, (_, i) => `call:${i + 1}`),
      );
      expect(log.slice(MAX_STACK_DEPTH)).toEqual(undone(MAX_STACK_DEPTH));
    });

    it('fails a transaction whose stored step type is unknown, and keeps running others', async () => {
      const store = await ctx.client();
      const fate = await ctx.engine();
      const bad = await store.seed({ step: { type: 'no-such-step', state: {} }, opName: 'op' });
      const good = await fate.seed(script(2), { opName: 'op' });
      const [badResult, goodResult] = await allDone(fate, [bad.id, good.id], 30_000);
      expect(badResult?.status).toBe(Status.FAILED);
      expect(badResult?.error?.message).toMatch(/no-such-step/);
      expect(goodResult?.status).toBe(Status.SUCCESSFUL);
    });
  });
}
