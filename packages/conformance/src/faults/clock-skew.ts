import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import {
  overlappingRuns,
  procStep,
  readDeferrals,
  readStepRuns,
  startEngineProcess,
  stopProcesses,
} from '../engine/process-harness.js';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, useFixture } from '../store/context.js';

const SKEW_MS = 30_000;
const LIVENESS_MS = 1_000;
const DEFER_MS = 400;

export function clockSkewTests(target: ConformanceTarget): void {
  describe('faults: clocks that disagree', () => {
    const ctx = useFixture(target);

    it(`changes nothing when engines' clocks are ${SKEW_MS / 1_000} s ahead and behind`, async (t) => {
      if (!ctx.store.capabilities.multiProcess || !ctx.fixture.url) {
        t.skip(); // clocks only disagree between processes; the backend declares one
        return;
      }
      const dir = mkdtempSync(join(tmpdir(), 'fate-skew-'));
      const log = join(dir, 'steps.log');
      const children: ChildProcess[] = [];
      const base = {
        livenessMs: LIVENESS_MS,
        workers: 4,
        ...(ctx.fixture.backendModule ? { backendModule: ctx.fixture.backendModule } : {}),
      };
      try {
        // w1 sorts first: where one leader cleans, the clock that runs ahead is the leader's
        for (const [name, clockSkewMs] of [
          ['w1', SKEW_MS],
          ['w2', -SKEW_MS],
          ['w3', 0],
        ] as const) {
          children.push(
            await startEngineProcess(ctx.fixture.url, name, log, { ...base, clockSkewMs }),
          );
        }
        const ids = await mapLimit(
          Array.from({ length: 150 }, (_, i) => i),
          20,
          async (i) =>
            (
              await ctx.store.seed({
                step: procStep(2, 20, i % 5 === 0 ? DEFER_MS : undefined),
                opName: 'skew',
              })
            ).id,
        );
        await eventually(
          'all 150 finished',
          async () => {
            await new Promise((r) => setTimeout(r, 200));
            return (await ctx.store.list({ statuses: [Status.SUCCESSFUL] })).length === 150;
          },
          30_000,
        );
        const runs = readStepRuns(log);
        expect(overlappingRuns(runs, Date.now())).toEqual([]);
        // nobody was cleared while alive, so no step ran twice
        expect(runs.length).toBe(ids.length * 2);
        const deferrals = readDeferrals(log);
        expect(deferrals.size).toBe(30);
        for (const [id, deferredAt] of deferrals) {
          const started = Math.min(
            ...runs.filter((r) => r.id === id && r.n === 1).map((r) => r.start),
          );
          // the wait is the one asked for, as the store's clock measures it
          expect(started - deferredAt, id).toBeGreaterThanOrEqual(DEFER_MS - 50);
          expect(started - deferredAt, id).toBeLessThan(DEFER_MS + 5_000);
        }
      } finally {
        await stopProcesses(children);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
