import { setTimeout as sleep } from 'node:timers/promises';
import {
  type FateId,
  type FatesStore,
  type JsonValue,
  MAX_PRIORITY,
  MIN_PRIORITY,
  type Repo,
  Status,
  type StepType,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { useEngines } from './engine-context.js';
import { type Recorder, scriptStepType } from './steps.js';

interface OrderState {
  readonly priority: number;
  /** Seeds one more of the same priority before it ends (a steady load). */
  readonly refill?: boolean;
}

/** What one engine's order steps saw: the transactions it started, in order. */
interface OrderLog {
  readonly started: Array<{ id: FateId; priority: number }>;
}

/** A step that records which engine started it, and may seed its own successor. */
function orderType(log: OrderLog, refill?: FatesStore): StepType<Recorder> {
  class OrderStep implements Repo<Recorder> {
    readonly type = 'order';
    constructor(readonly s: OrderState) {}
    isReady(): number {
      return 0;
    }
    async call(id: FateId): Promise<undefined> {
      log.started.push({ id, priority: this.s.priority });
      if (this.s.refill && refill) await refill.seed(orderSeed(this.s));
      await sleep(2);
      return undefined;
    }
    undo(): void {}
    state(): JsonValue {
      return { ...this.s };
    }
  }
  return { type: 'order', fromState: (s) => new OrderStep(s as unknown as OrderState) };
}

const orderSeed = (s: OrderState) => ({
  step: { type: 'order', state: { ...s } },
  opName: 'order',
  priority: s.priority,
});

/**
 * Issue 25: engines run higher priorities first within their partition, and never starve
 * lower ones: every fourth round of a finder reads the next page of its sweep.
 */
export function enginePriorityTests(target: ConformanceTarget): void {
  describe('priorities in engines', () => {
    const ctx = useEngines(target);

    it('runs a higher-priority backlog before a lower one, on each of two engines', async (t) => {
      const client = await ctx.client();
      if (!client.capabilities.priorities) {
        t.skip(); // the backend keeps no priorities: every record runs as 0
        return;
      }
      const requests = Array.from({ length: 24 }, (_, i) =>
        orderSeed({ priority: i % 2 === 0 ? MAX_PRIORITY - 1 : MIN_PRIORITY + 1 }),
      );
      const seeded = await client.seedMany(requests);
      const logs: OrderLog[] = [{ started: [] }, { started: [] }];
      await Promise.all(
        logs.map((log) => ctx.engine({ steps: [scriptStepType, orderType(log)], workers: 1 })),
      );
      await waitAll(
        client,
        seeded.map((s) => s.id),
        30_000,
      );
      for (const [n, log] of logs.entries()) {
        // each engine started every high one it ran before any low one it ran
        const firstLow = log.started.findIndex((s) => s.priority < 0);
        const lateHigh = log.started.slice(firstLow < 0 ? log.started.length : firstLow);
        expect(
          lateHigh.filter((s) => s.priority > 0),
          `engine ${n}: ${JSON.stringify(log.started)}`,
        ).toEqual([]);
      }
      expect(logs.flatMap((l) => l.started).length).toBe(24);
    });

    // Both ways an engine claims: its finder alone, and with every finishing write claiming
    // the next transaction too (claimOnFinish, where the store claims with the write).
    it.for([
      ['', false],
      [', finishing writes claiming the next too (claimOnFinish)', true],
    ] as const)(
      'runs a low-priority transaction under a steady high-priority load within a bounded number of others%s',
      async ([, claimOnFinish], t) => {
        const client = await ctx.client();
        if (!client.capabilities.priorities) {
          t.skip();
          return;
        }
        // Six high-priority transactions, each seeding its successor before it ends: while
        // this one worker is idle, one is always runnable above the low one.
        const log: OrderLog = { started: [] };
        const feeder = await ctx.client();
        const [low] = await client.seedMany([orderSeed({ priority: MIN_PRIORITY })]);
        await client.seedMany(
          Array.from({ length: 6 }, () => orderSeed({ priority: MAX_PRIORITY, refill: true })),
        );
        await ctx.engine({
          steps: [scriptStepType, orderType(log, feeder)],
          workers: 1,
          claimOnFinish,
        });
        const lowId = low?.id as FateId;
        await waitAll(client, [lowId], 20_000);
        const before = log.started.findIndex((s) => s.id === lowId);
        // the rule's bound: within the next sweep page (3 claims, then a page of at most the
        // backlog), with room for a partition change at start-up
        expect(before).toBeGreaterThanOrEqual(0);
        expect(before).toBeLessThanOrEqual(40);
      },
    );
  });
}

/** Waits until every id finished, reading the store; fails after `timeoutMs`. */
async function waitAll(store: FatesStore, ids: readonly FateId[], timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const views = await Promise.all(ids.map((id) => store.read(id)));
    const open = views.filter((v) => v.status !== Status.SUCCESSFUL);
    if (open.length === 0) return;
    if (performance.now() > deadline) {
      throw new Error(`${open.length} of ${ids.length} not finished after ${timeoutMs} ms`);
    }
    await sleep(20);
  }
}
