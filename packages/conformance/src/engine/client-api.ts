import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, rejection } from '../store/context.js';
import { useEngines } from './engine-context.js';
import { script, scriptData } from './steps.js';

export function clientApiTests(target: ConformanceTarget): void {
  describe('client API', () => {
    const ctx = useEngines(target);

    it('cancels a NEW transaction: it ends FAILED and nothing ran', async () => {
      const store = await ctx.client();
      const fate = await ctx.engine();
      const id = await store.create();
      await fate.cancel(id);
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.message).toBe('cancelled');
      expect(ctx.env.log.get(id)).toBeUndefined();
    });

    it('cancels a SUBMITTED transaction before any instance runs it', async () => {
      const store = await ctx.client();
      const { id } = await store.seed({ step: scriptData(3), opName: 'op' });
      const fate = await ctx.engine({ partitions: { partition: 0, total: 0 } });
      await fate.cancel(id);
      const other = await ctx.engine();
      expect((await other.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(Status.FAILED);
      await new Promise((r) => setTimeout(r, 200));
      expect(ctx.env.log.get(id)).toBeUndefined();
    });

    it('refuses to cancel a running transaction', async () => {
      const fate = await ctx.engine();
      const { id } = await fate.seed(script(3, { gate: 'hold', gateAt: 2 }), { opName: 'op' });
      const gate = ctx.env.gate('hold');
      while (!gate.entered) await new Promise((r) => setTimeout(r, 5));
      const err = await rejection(fate.cancel(id, { timeoutMs: 200 }));
      expect(['FATE_ILLEGAL_STATUS', 'FATE_TIMEOUT']).toContain(err.code);
      gate.open();
      expect((await fate.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      expect((await rejection(fate.cancel(id))).code).toBe('FATE_ILLEGAL_STATUS');
    });

    it('deletes finished transactions with auto-clean, and keeps them readable without', async () => {
      const fate = await ctx.engine();
      const cleanOk = await fate.seed(script(2), { opName: 'op', autoClean: true });
      const cleanFailed = await fate.seed(script(2, { failCallAt: 2 }), {
        opName: 'op',
        autoClean: true,
      });
      const kept = await fate.seed(script(2), { opName: 'op' });
      const keptFailed = await fate.seed(script(2, { failCallAt: 2 }), { opName: 'op' });
      for (const { id } of [cleanOk, cleanFailed]) {
        const r = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
        expect(r.status).toBe(Status.UNKNOWN);
        expect(ctx.env.log.get(id)?.length).toBeGreaterThan(0);
      }
      expect((await fate.waitForCompletion(kept.id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      expect((await fate.waitForCompletion(keptFailed.id, { timeoutMs: 10_000 })).status).toBe(
        Status.FAILED,
      );
      expect((await fate.read(kept.id)).status).toBe(Status.SUCCESSFUL);
      await fate.delete(kept.id);
      expect((await fate.read(kept.id)).status).toBe(Status.UNKNOWN);
    });

    it('gives correct results for idempotent steps when every step runs call, isReady, call', async () => {
      const fate = await ctx.engine({ idempotencyCheck: true });
      const seeded = await Promise.all(
        [1, 2, 3].map((t) => fate.seed(script(t + 2, { result: t }), { opName: 'op' })),
      );
      for (const [i, { id }] of seeded.entries()) {
        const total = i + 3;
        const r = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
        expect(r).toMatchObject({ status: Status.SUCCESSFUL, returnValue: i + 1 });
        for (let n = 1; n <= total; n++) {
          expect(ctx.env.calls.get(`${id}:${n}`)).toBe(2);
          expect(ctx.env.effects.get(`${id}:${n}`)).toBe(n * 10);
        }
      }
    });

    it('ages off what it finished once the retention passed, stamping the finish time', async () => {
      const fate = await ctx.engine({ retentionMs: 300, ageOffCheckMs: 100 });
      const { id } = await fate.seed(script(1), { opName: 'op' });
      const kept = await fate.seed(script(1), { opName: 'op', retainMs: 60_000 });
      expect((await fate.waitForCompletion(id, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
      await fate.waitForCompletion(kept.id, { timeoutMs: 10_000 });
      expect((await fate.read(kept.id)).info.ageOff).toBeGreaterThan(0);
      await eventually(
        'the finished transaction is aged off',
        async () => (await fate.read(id)).status === Status.UNKNOWN,
        10_000,
      );
      expect((await fate.read(kept.id)).status).toBe(Status.SUCCESSFUL);
    });

    it('waits for completion with one shared poller, not a timer per waiter', async () => {
      const { store, faults } = await ctx.faultyClient();
      const fate = await ctx.engine({ store });
      const { id } = await fate.seed(script(2, { sleepMs: 1_000, sleepAt: 1 }), {
        opName: 'op',
      });
      const before = faults.calls.get('read') ?? 0;
      const results = await Promise.all(
        Array.from({ length: 50 }, () => fate.waitForCompletion(id, { timeoutMs: 10_000 })),
      );
      expect(results.every((r) => r.status === Status.SUCCESSFUL)).toBe(true);
      // 50 waiters for a second: a poller per waiter would read hundreds of times
      const reads = (faults.calls.get('read') ?? 0) - before;
      expect(reads).toBeLessThan(100);
    });

    it('deduplicates keyed seeds through the engine', async () => {
      const fate = await ctx.engine();
      const key = { type: 'order', key: '42' };
      const [a, b] = await Promise.all([
        fate.seed(script(1), { opName: 'op', key }),
        fate.seed(script(1), { opName: 'op', key }),
      ]);
      expect(a?.id).toBe(b?.id);
      expect([a?.created, b?.created].filter(Boolean)).toHaveLength(1);
      expect((await fate.waitForCompletion(a?.id as never, { timeoutMs: 10_000 })).status).toBe(
        Status.SUCCESSFUL,
      );
    });
  });
}
