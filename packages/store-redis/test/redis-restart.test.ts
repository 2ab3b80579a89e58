import { randomBytes } from 'node:crypto';
import { Recorder, script, scriptStepType } from '@fate/conformance';
import { Fate, type FateId, type FatesStore, Status } from '@fate/core';
import { createRedisBackend, createRedisStore } from '@fate/store-redis';
import { type RedisTestService, startRedis } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Redis restarts (AOF on) in the middle of a run: every transaction still completes.
let service: RedisTestService;
const stores: FatesStore[] = [];
const engines: Fate<Recorder>[] = [];

beforeAll(async () => {
  service = await startRedis();
});

afterAll(async () => {
  await Promise.allSettled(engines.map((e) => e.shutdown(5_000)));
  await Promise.allSettled(stores.map((s) => s.close()));
  await service?.stop();
});

it('completes every transaction when Redis restarts mid-run', async () => {
  const url = new URL(service.url);
  url.searchParams.set('prefix', `restart${randomBytes(4).toString('hex')}`);
  const env = new Recorder();
  const warnings: string[] = [];
  for (let i = 0; i < 2; i++) {
    const store = await createRedisStore(url.href, { livenessTimeoutMs: 3_000 });
    stores.push(store);
    const fate = new Fate<Recorder>({
      store,
      env,
      steps: [scriptStepType],
      workers: 8,
      heartbeatMs: 200,
      deadReservationCheckMs: 200,
      finderBackoff: { minMs: 5, maxMs: 200 },
      onEvent: (type, e) => {
        if (type === 'warning') warnings.push((e as { message: string }).message);
      },
    });
    engines.push(fate);
    await fate.start();
  }
  const seeder = engines[0] as Fate<Recorder>;
  const ids: FateId[] = [];
  for (let i = 0; i < 300; i++)
    ids.push((await seeder.seed(script(3, { result: i }), { opName: 'op' })).id);

  // restart while work is in flight
  while (env.order.length < 200) await new Promise((r) => setTimeout(r, 5));
  const callsAtRestart = env.order.length;
  // A client of its own asks Redis back to back while it restarts: the outage is seen by
  // construction (a call fails at once while the connection is down), not by the luck of an
  // engine's call landing in it, which made "the outage was seen" flake (1 run in 4).
  const probe = createRedisBackend(url.href);
  await probe.open();
  let restarted = false;
  let failedProbes = 0;
  const probing = (async () => {
    while (!restarted) {
      // the backend's own scan: the guard asks every read again for about half a second
      await probe.scanRunnable(undefined, 10).catch(() => failedProbes++);
      await new Promise((r) => setImmediate(r));
    }
  })();
  await service.restart().finally(() => {
    restarted = true;
  });
  await probing;
  await probe.close();
  expect(callsAtRestart).toBeLessThan(900);

  const reader = await createRedisStore(url.href);
  stores.push(reader);
  const deadline = Date.now() + 60_000;
  let done = 0;
  while (Date.now() < deadline) {
    done = (await reader.list({ statuses: [Status.SUCCESSFUL] })).length;
    if (done === 300) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(done, `warnings: ${warnings.slice(0, 5).join('; ')}`).toBe(300);
  expect(await reader.list({ statuses: [Status.FAILED, Status.FAILED_IN_PROGRESS] })).toEqual([]);
  for (const id of ids) {
    for (const n of [1, 2, 3]) expect(env.calls.get(`${id}:${n}`) ?? 0).toBeGreaterThanOrEqual(1);
  }
  // the outage happened while the engines worked (and they survived it), not skipped
  expect(failedProbes).toBeGreaterThan(0);
});
