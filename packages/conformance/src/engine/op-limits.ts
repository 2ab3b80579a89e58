import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Fate,
  type FateId,
  type JsonValue,
  type Repo,
  Status,
  type StepType,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit } from '../store/context.js';
import { useEngines } from './engine-context.js';
import { type Recorder, scriptStepType } from './steps.js';

/** What the probe steps of one test saw: running now, most at once, when each started. */
class Probe {
  running = 0;
  most = 0;
  readonly starts: number[] = [];
  readonly calls = new Map<FateId, number>();
}

interface ProbeState {
  /** How long a call takes, ms (it honours its signal). */
  readonly ms: number;
  /** How long the very first call of a transaction takes instead, ms. */
  readonly firstMs?: number;
}

/** A step that measures, itself, how many of its kind run at once across every engine. */
function probeType(probe: Probe): StepType<Recorder> {
  class ProbeStep implements Repo<Recorder> {
    readonly type = 'probe';
    constructor(readonly s: ProbeState) {}
    isReady(): number {
      return 0;
    }
    async call(id: FateId, _env: Recorder, context: { signal: AbortSignal }): Promise<undefined> {
      const n = (probe.calls.get(id) ?? 0) + 1;
      probe.calls.set(id, n);
      probe.starts.push(performance.now());
      probe.running++;
      probe.most = Math.max(probe.most, probe.running);
      try {
        const ms = n === 1 && this.s.firstMs !== undefined ? this.s.firstMs : this.s.ms;
        if (ms > 0) await sleep(ms, undefined, { signal: context.signal });
      } finally {
        probe.running--;
      }
      return undefined;
    }
    undo(): void {}
    state(): JsonValue {
      return { ...this.s };
    }
  }
  return { type: 'probe', fromState: (s) => new ProbeStep(s as unknown as ProbeState) };
}

/**
 * Cluster-wide limits per op (issue 25): enforced through the store, so three engines of
 * four workers each never exceed them, and a dead engine's share comes back once the
 * others judge it dead.
 */
export function opLimitTests(target: ConformanceTarget): void {
  describe('cluster-wide op limits', () => {
    const ctx = useEngines(target);
    const engines = async (probe: Probe, limits: Record<string, object>, n = 3) => {
      const steps = [scriptStepType, probeType(probe)];
      return Promise.all(
        Array.from({ length: n }, () => ctx.engine({ steps, workers: 4, limits })),
      );
    };
    const seed = (fate: Fate<Recorder>, n: number, op: string, state: ProbeState) =>
      mapLimit(
        Array.from({ length: n }, (_, i) => i),
        10,
        async () => {
          const step = probeType(new Probe()).fromState(state as unknown as JsonValue);
          return (await fate.seed(step, { opName: op })).id;
        },
      );

    it('never runs more than `concurrency` of an op at once across three engines', async () => {
      const probe = new Probe();
      const all = await engines(probe, { limited: { concurrency: 2 } });
      const [first] = all;
      if (!first) throw new Error('no engine');
      const ids = await seed(first, 12, 'limited', { ms: 150 });
      const results = await Promise.all(
        ids.map((id) => first.waitForCompletion(id, { timeoutMs: 60_000 })),
      );
      expect(results.map((r) => r.status)).toEqual(ids.map(() => Status.SUCCESSFUL));
      expect(probe.most).toBeLessThanOrEqual(2);
      expect(probe.most).toBeGreaterThanOrEqual(1);
      // the engine's own slot records are NEW and of op fate:slot, never run
      const client = await ctx.client();
      const slots = await client.list({ opName: 'fate:slot' });
      expect(slots.map((s) => s.status)).toEqual([Status.NEW, Status.NEW]);
    });

    it('starts at most `perSecond` of an op per second across three engines', async () => {
      const probe = new Probe();
      const all = await engines(probe, { rated: { perSecond: 4 } });
      const [first] = all;
      if (!first) throw new Error('no engine');
      const ids = await seed(first, 12, 'rated', { ms: 0 });
      const results = await Promise.all(
        ids.map((id) => first.waitForCompletion(id, { timeoutMs: 60_000 })),
      );
      expect(results.map((r) => r.status)).toEqual(ids.map(() => Status.SUCCESSFUL));
      // 4 slots, each started at most once a second by the store's clock: never 5 starts
      // within 700 ms (300 ms for the distance between this process's view of the store's
      // clock and its own, a round trip under load; with no limit all 12 start at once)
      const starts = [...probe.starts].sort((x, y) => x - y);
      const crowded = starts.filter(
        (t, i) => (starts[i + 4] ?? Number.POSITIVE_INFINITY) - t < 700,
      );
      expect(crowded).toEqual([]);
    });

    it("gives a dead engine's share of a limit back once it is judged dead", async () => {
      const probe = new Probe();
      const steps = [scriptStepType, probeType(probe)];
      const limits = { limited: { concurrency: 1 } };
      const { store, faults } = await ctx.faultyClient();
      const doomed = await ctx.engine({ store, steps, workers: 2, limits });
      // its first call holds the only slot (it ends when the engine's lease lapses)
      const [held] = await seed(doomed, 1, 'limited', { ms: 0, firstMs: 60_000 });
      if (!held) throw new Error('no id');
      await eventually('the first call runs', async () => probe.running === 1, 10_000);
      faults.outage(600_000); // killed, as the store sees it: nothing it asks reaches it
      // the whole id space, so it would run the next one at once were the slot not honoured
      const partitions = { partition: 0, total: 1 };
      const other = await ctx.engine({ steps, workers: 2, limits, partitions });
      const [next] = await seed(other, 1, 'limited', { ms: 0 });
      if (!next) throw new Error('no id');
      for (const id of [held, next]) {
        expect((await other.waitForCompletion(id, { timeoutMs: 20_000 })).status).toBe(
          Status.SUCCESSFUL,
        );
      }
      expect(probe.most).toBe(1);
    });
  });
}
