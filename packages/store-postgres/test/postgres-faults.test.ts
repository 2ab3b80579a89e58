import { setTimeout as sleep } from 'node:timers/promises';
import { Recorder, scriptData, scriptStepType } from '@fate/conformance';
import { Fate, type FatesStore, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { type PostgresTest, usePostgres } from './postgres-harness.js';

const TXS = 300;

/**
 * Two engines work through `TXS` three-step transactions (step 2 takes 20 ms) while
 * `disrupt` runs; resolves when every one SUCCEEDED, with what the run recorded.
 */
async function runThrough(t: PostgresTest, disrupt: () => Promise<void>) {
  const env = new Recorder();
  const engines: Fate<Recorder>[] = [];
  const stores: FatesStore[] = [];
  for (let i = 0; i < 2; i++) {
    const store = await t.store({ livenessTimeoutMs: 3_000 });
    stores.push(store);
    engines.push(
      new Fate({
        store,
        env,
        steps: [scriptStepType],
        workers: 8,
        logger: quiet,
        heartbeatMs: 250,
      }),
    );
  }
  await Promise.all(engines.map((f) => f.start()));
  const seeder = await t.store();
  const seeded = await seeder.seedMany(
    Array.from({ length: TXS }, () => ({
      step: scriptData(3, { sleepMs: 20, sleepAt: 2 }),
      opName: 'op',
    })),
  );
  const started = performance.now();
  try {
    await disrupt();
    for (;;) {
      const done = (await seeder.list({ statuses: [Status.SUCCESSFUL] })).length;
      if (done === TXS) break;
      if (performance.now() - started > 90_000) throw new Error(`only ${done} of ${TXS} done`);
      await sleep(200);
    }
  } finally {
    await Promise.all(engines.map((f) => f.shutdown(5_000)));
  }
  return { env, ids: seeded.map((s) => s.id), ms: performance.now() - started };
}

const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** The sessions of fate clients on the test database, other than the asking one. */
const FATE_SESSIONS = `SELECT pid, query FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = 'fate' AND pid <> pg_backend_pid()`;

describe('postgres backend: lost connections', () => {
  const t = usePostgres();

  it('completes every transaction when all its connections are terminated three times mid-run', async () => {
    let terminated = 0;
    const { env, ids, ms } = await runThrough(t, async () => {
      for (let round = 0; round < 3; round++) {
        await sleep(400);
        terminated += await t.sql(async (c) => {
          const r = await c.query(`SELECT pg_terminate_backend(pid) FROM (${FATE_SESSIONS}) s`);
          return r.rowCount ?? 0;
        });
      }
    });
    console.log(`${TXS} transactions in ${ms.toFixed(0)} ms; ${terminated} sessions terminated`);
    expect(terminated).toBeGreaterThan(6);
    expect(env.overlaps).toEqual([]);
    for (const id of ids) expect(env.calls.get(`${id}:3`)).toBeGreaterThanOrEqual(1);
  });

  it('listens for wake-ups again after its listening connection was terminated', async () => {
    const listener = await t.store();
    let woken = 0;
    await listener.onWakeup(() => woken++);
    const listening = async () =>
      (await t.sql((c) => c.query(FATE_SESSIONS))).rows.filter((r) => /^LISTEN /.test(r.query));
    expect(await listening()).toHaveLength(1);
    await t.sql((c) => c.query(`SELECT pg_terminate_backend(pid) FROM (${FATE_SESSIONS}) s`));
    const deadline = performance.now() + 10_000;
    while ((await listening()).length === 0) {
      expect(performance.now()).toBeLessThan(deadline);
      await sleep(50);
    }
    const before = woken;
    const seeder = await t.store();
    await seeder.seed({ step: { type: 's', state: {} }, opName: 'op' });
    while (woken === before) {
      expect(performance.now()).toBeLessThan(deadline);
      await sleep(10);
    }
  });
});

describe('postgres backend: a server restart', () => {
  const t = usePostgres({ own: true });

  it('completes every transaction when the server restarts mid-run', async () => {
    let downMs = 0;
    const { env, ids, ms } = await runThrough(t, async () => {
      await sleep(500);
      const stopped = performance.now();
      await t.service.restart();
      downMs = performance.now() - stopped;
    });
    console.log(
      `${TXS} transactions in ${ms.toFixed(0)} ms; the server was away ${downMs.toFixed(0)} ms`,
    );
    expect(env.overlaps).toEqual([]);
    for (const id of ids) expect(env.calls.get(`${id}:3`)).toBeGreaterThanOrEqual(1);
  });
});
