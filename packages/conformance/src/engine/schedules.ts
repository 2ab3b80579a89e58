import { type FateId, keyedFateId, Status, scheduledKey, scheduleId } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually } from '../store/context.js';
import { useEngines } from './engine-context.js';
import { script } from './steps.js';

const NAME = 'every-second';

/**
 * Schedules (issue 25) on three engines: one is killed (its store calls fail for good, as a
 * SIGKILL looks to the store) at a cron boundary, exactly where a schedule can double or
 * lose a due time — after judging, before its seeds reach the store; or after its fenced
 * write, before it submitted what it seeded — and every due time is still seeded exactly once.
 */
export function scheduleTests(target: ConformanceTarget): void {
  describe('schedules', () => {
    const ctx = useEngines(target);

    it.each([
      ['after judging, before its seeds reach the store', 'insert'],
      ['after its fenced write, before it submitted the seeds', 'write'],
    ] as const)(
      'seeds every due time once across three engines when the seeder is killed %s',
      async (_, phase) => {
        // The first seeder runs no transactions (its pool takes another op), so its writes
        // are the schedule's own.
        const { store, faults } = await ctx.faultyClient();
        const seeder = await ctx.engine({
          store,
          pools: [{ name: 'other', ops: ['other'], workers: 1 }],
          onlyPooledOps: true,
        });
        const [a, b] = [await ctx.engine(), await ctx.engine()];
        const every = () => script(1);
        const options = { catchUp: 'all', opName: 'scheduled' } as const;
        seeder.schedule(NAME, '* * * * * *', every, options);
        await eventually('two due times ran', async () => ctx.env.log.size >= 2, 15_000);
        let killed = false;
        const kill = () => {
          killed = true;
          faults.outage(600_000);
        };
        if (phase === 'insert') {
          faults.before('insert', kill);
          faults.before('insertMany', kill);
        } else faults.after('write', kill);
        await eventually('the seeder was killed at a due time', async () => killed, 10_000);
        a.schedule(NAME, '* * * * * *', every, options);
        b.schedule(NAME, '* * * * * *', every, options);
        const ranAtKill = ctx.env.log.size;
        await eventually(
          'three more due times ran',
          async () => ctx.env.log.size >= ranAtKill + 3,
          20_000,
        );

        // every engine stops judging (a judgement under way ends first); a fresh one runs the rest
        await Promise.all([a.shutdown(5_000), b.shutdown(5_000), seeder.shutdown(1_000)]);
        const runner = await ctx.engine();
        const client = await ctx.client();
        const record = await client.read(scheduleId(NAME));
        const state = record.info.internal as { through: number };
        const created = record.info.created ?? 0;
        const dues: number[] = [];
        for (let t = Math.floor(created / 1_000) * 1_000 + 1_000; t <= state.through; t += 1_000) {
          dues.push(t);
        }
        const ids = dues.map((t) => keyedFateId(scheduledKey(NAME, t)));
        const results = await Promise.all(
          ids.map((id) => runner.waitForCompletion(id, { timeoutMs: 20_000 })),
        );
        expect(results.map((r) => r.status)).toEqual(ids.map(() => Status.SUCCESSFUL));
        const ranTwice = ids.filter((id: FateId) => ctx.env.calls.get(`${id}:1`) !== 1);
        expect(ranTwice).toEqual([]);
        // nothing else of the op: no due time outside the judged window was seeded
        const listed = (await client.list({ opName: 'scheduled' })).map((t) => t.id);
        expect(new Set(listed)).toEqual(new Set(ids));
        expect(ids.length).toBeGreaterThanOrEqual(ranAtKill + 3);
      },
      // cron's finest period is a second and the case waits for three due times after the
      // kill: its own bound, not the runner's default of 5 s (an author's vitest config)
      30_000,
    );
  });
}
