import { type FateId, type RecordWrite, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually } from '../store/context.js';
import { FAST_STORE, useEngines } from './engine-context.js';
import { watchRetries } from './retry-events.js';
import { script, scriptData } from './steps.js';

const NO_JITTER = { backoffMs: 200, factor: 2, jitter: 0 };

/** Step retries (`RetryPolicy`), step timeouts and deferred seeds, run by engines. */
export function retryTests(target: ConformanceTarget): void {
  describe('retries, timeouts and deferred seeds', () => {
    const ctx = useEngines(target);

    it('retries a failing call with a stored backoff until it succeeds, counting in the transaction', async () => {
      const w = watchRetries();
      const fate = await ctx.engine({ onEvent: w.onEvent });
      const retry = { attempts: 3, ...NO_JITTER };
      const { id } = await fate.seed(script(2, { failCallAt: 1, failTimes: 2, retry }), {
        opName: 'op',
      });
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'call:1', 'call:2']);
      expect(w.retries.map((r) => [r.attempt, r.deferMs])).toEqual([
        [1, 200],
        [2, 400],
      ]);
      const { info } = await fate.read(id);
      expect(info.retry).toMatchObject({ depth: 1, type: 'script', attempts: 2, maxAttempts: 3 });
      expect(info.retry?.errors.map((e) => e.message)).toEqual(['boom at 1', 'boom at 1']);
    });

    it('fails and undoes only when the attempts are exhausted', async () => {
      const fate = await ctx.engine();
      const retry = { attempts: 3, backoffMs: 50, jitter: 0 };
      const { id } = await fate.seed(script(2, { failCallAt: 2, retry }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.message).toBe('boom at 2');
      expect(ctx.env.log.get(id)).toEqual([
        'call:1',
        'call:2',
        'call:2',
        'call:2',
        'undo:2',
        'undo:1',
      ]);
      const { info } = await fate.read(id);
      expect(info.retry).toMatchObject({ depth: 2, attempts: 3, maxAttempts: 3 });
    });

    it("retries per op from the engine's options, only errors the policy marks retryable", async () => {
      const fate = await ctx.engine({
        retry: {
          flaky: { attempts: 4, backoffMs: 20, retryOn: (e) => /boom/.test(String(e)) },
          picky: { attempts: 4, backoffMs: 20, retryOn: [RangeError] },
        },
      });
      const flaky = await fate.seed(script(1, { failCallAt: 1, failTimes: 1 }), {
        opName: 'flaky',
      });
      const picky = await fate.seed(script(1, { failCallAt: 1, failTimes: 1 }), {
        opName: 'picky',
      });
      const other = await fate.seed(script(1, { failCallAt: 1, failTimes: 1 }), {
        opName: 'other',
      });
      const [a, b, c] = await Promise.all(
        [flaky, picky, other].map((s) => fate.waitForCompletion(s.id, { timeoutMs: 10_000 })),
      );
      expect(a?.status).toBe(Status.SUCCESSFUL);
      expect(ctx.env.log.get(flaky.id)).toEqual(['call:1', 'call:1']);
      // an Error is no RangeError; an op without a policy is not retried
      for (const [r, id] of [
        [b, picky.id],
        [c, other.id],
      ] as const) {
        expect(r?.status).toBe(Status.FAILED);
        expect(ctx.env.log.get(id)).toEqual(['call:1', 'undo:1']);
      }
    });

    it('continues the count after a crash mid-retry: another engine takes the deferred transaction', async () => {
      const { store, faults } = await ctx.faultyClient();
      const first = watchRetries();
      let crashed!: () => void;
      const crash = new Promise<void>((r) => {
        crashed = r;
      });
      await ctx.engine({
        store,
        onEvent: (type, event) => {
          first.onEvent(type, event);
          if (type === 'retry') {
            faults.outage(60_000); // the process is gone: nothing of it reaches the store
            crashed();
          }
        },
      });
      const seeder = await ctx.client();
      const retry = { attempts: 3, backoffMs: 300, jitter: 0 };
      const { id } = await seeder.seed({
        step: scriptData(1, { failCallAt: 1, retry }),
        opName: 'op',
      });
      await crash;
      expect((await seeder.read(id)).info.retry?.attempts).toBe(1);
      const second = watchRetries();
      const fate = await ctx.engine({ onEvent: second.onEvent });
      const result = await fate.waitForCompletion(id, { timeoutMs: 15_000 });
      expect(result.status).toBe(Status.FAILED);
      // 3 attempts in all, not 1 + 3: the second engine went on from the stored count
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'call:1', 'undo:1']);
      expect(first.retries.map((r) => r.attempt)).toEqual([1]);
      expect(second.retries.map((r) => r.attempt)).toEqual([2]);
      const { info } = await fate.read(id);
      expect(info.retry).toMatchObject({ attempts: 3, maxAttempts: 3 });
      expect(info.retry?.errors).toHaveLength(3);
    });

    it('does not count an attempt cut short by a crash mid-call; another engine goes on from the stored count', async () => {
      // a short liveness timeout: the dead engine is judged dead, and its call taken up, sooner
      const { store, faults } = await ctx.faultyClient({ ...FAST_STORE, livenessTimeoutMs: 500 });
      const first = watchRetries();
      let calls = 0;
      const dead = await ctx.engine({
        store,
        onEvent: (type, event) => {
          first.onEvent(type, event);
          // the second attempt's call has begun: the process dies under it
          if (type === 'step' && ++calls === 2) faults.outage(60_000);
        },
      });
      const seeder = await ctx.client();
      const retry = { attempts: 3, backoffMs: 100, jitter: 0 };
      const state = { failCallAt: 1, retry, sleepMs: 200, sleepAt: 1, abortable: true };
      const { id } = await seeder.seed({ step: scriptData(1, state), opName: 'op' });
      await eventually('the second attempt began', async () => calls >= 2, 10_000);
      const second = watchRetries();
      const fate = await ctx.engine({ onEvent: second.onEvent });
      const result = await fate.waitForCompletion(id, { timeoutMs: 20_000 });
      expect(result.status).toBe(Status.FAILED);
      // 4 calls: the cut-short one was not a failure of the step, so 3 counted attempts remain
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'call:1', 'call:1', 'undo:1']);
      expect(first.retries.map((r) => r.attempt)).toEqual([1]);
      expect(second.retries.map((r) => r.attempt)).toEqual([2]);
      expect((await fate.read(id)).info.retry).toMatchObject({ attempts: 3, maxAttempts: 3 });
      // the dead engine cannot reach the store: stop it now, not in a 5 s shutdown after the test
      await dead.shutdown(100);
    });

    it('counts each attempt once when the reply of its retry write is lost', async () => {
      const { store, faults } = await ctx.faultyClient();
      const w = watchRetries();
      const fate = await ctx.engine({ store, onEvent: w.onEvent });
      // retry writes (a release that stores the count) apply, and two of their replies are
      // lost; a release may carry the claim of the next transaction (finishAndClaim)
      let lost = 0;
      const retryWrites = (_id: FateId, _r: unknown, change: RecordWrite) => {
        const match =
          lost < 2 && change.release !== undefined && change.info?.includes('"retry"') === true;
        if (match) lost++;
        return match;
      };
      faults.inject('lose-reply', 'write', 2, retryWrites);
      faults.inject('lose-reply', 'finishAndClaim', 2, retryWrites);
      const retry = { attempts: 3, backoffMs: 50, jitter: 0 };
      const { id } = await fate.seed(script(1, { failCallAt: 1, retry }), { opName: 'op' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'call:1', 'undo:1']);
      expect(lost).toBe(2);
      expect(w.retries.map((r) => r.attempt)).toEqual([1, 2]);
      expect((await fate.read(id)).info.retry).toMatchObject({ attempts: 3, maxAttempts: 3 });
    });

    it('aborts the signal of a call past its timeoutMs and counts the attempt as failed', async () => {
      const fate = await ctx.engine();
      const state = { sleepMs: 10_000, sleepAt: 1, abortable: true, timeoutMs: 150 };
      const { id } = await fate.seed(
        script(1, { ...state, retry: { attempts: 2, backoffMs: 50 } }),
        { opName: 'op' },
      );
      const result = await fate.waitForCompletion(id, { timeoutMs: 10_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.code).toBe('FATE_STEP_TIMEOUT');
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'undo:1']);
    });

    it('reports a call that ignores its signal past its timeout and never runs it twice at once', async () => {
      const w = watchRetries();
      // two engines: neither may take it up while the overdue call still runs (for longer
      // than their liveness timeout, so a holder that stopped renewing for it would be cleared)
      const fate = await ctx.engine({ onEvent: w.onEvent });
      await ctx.engine({ onEvent: w.onEvent });
      const state = { sleepMs: 1_400, sleepAt: 1, timeoutMs: 100 }; // reported 1 s past its timeout
      const { id } = await fate.seed(
        script(1, { ...state, retry: { attempts: 2, backoffMs: 0 } }),
        { opName: 'op' },
      );
      await eventually(
        'the overdue call is reported',
        async () => w.warnings.some((m) => /ignores its signal/.test(m)),
        5_000,
      );
      const result = await fate.waitForCompletion(id, { timeoutMs: 15_000 });
      expect(result.status).toBe(Status.FAILED);
      expect(result.error?.code).toBe('FATE_STEP_TIMEOUT');
      expect(ctx.env.log.get(id)).toEqual(['call:1', 'call:1', 'undo:1']);
      expect(ctx.env.overlaps).toEqual([]);
    });

    it('runs a seed deferred with delayMs no sooner than its delay, and a runAt in the past at once', async () => {
      const starts = new Map<FateId, number>();
      const fate = await ctx.engine({
        onEvent: (type, event) => {
          const id = (event as { id?: FateId }).id;
          if (type === 'step' && id && !starts.has(id)) starts.set(id, performance.now());
        },
      });
      const seeded = performance.now();
      const late = await fate.seed(script(1), { opName: 'op', delayMs: 700 });
      const now = await fate.seed(script(1), { opName: 'op', runAt: new Date(0) });
      const results = await Promise.all(
        [late, now].map((s) => fate.waitForCompletion(s.id, { timeoutMs: 10_000 })),
      );
      expect(results.map((r) => r.status)).toEqual([Status.SUCCESSFUL, Status.SUCCESSFUL]);
      expect((starts.get(late.id) ?? 0) - seeded).toBeGreaterThanOrEqual(650);
      expect(starts.get(now.id) ?? Infinity).toBeLessThan(starts.get(late.id) ?? 0);
      // deferred, it was never taken: it can still be cancelled
      const parked = await fate.seed(script(1), { opName: 'op', delayMs: 60_000 });
      await fate.cancel(parked.id, { timeoutMs: 5_000 });
      expect((await fate.read(parked.id)).status).toBe(Status.FAILED);
      expect(ctx.env.log.get(parked.id)).toBeUndefined();
    });
  });
}
