import { type FateId, openStore, Status } from '@fate/core';
import { type RedisCluster, startRedisCluster } from '@fate/test-services';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { storeUser, storeUserRules } from './redis-acl.js';

// The least-privilege rule of the README on a Redis Cluster: a store cut into 3 shards
// (hash tags {prefix#k.n} on 3 masters) works as a user limited to its prefix, and that
// user cannot open another prefix. (A focused check; the suites run on TLS + ACL on one
// server, and on a Cluster without ACLs.)
let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
});

afterAll(async () => {
  await cluster?.stop();
});

it('runs a sharded store as a user limited to its prefix, and refuses that user another prefix', async () => {
  const { user, password } = storeUser('acl3');
  for (const node of cluster.nodes) {
    const [host, port] = node.split(':') as [string, string];
    const admin = new Redis({ host, port: Number(port), lazyConnect: true });
    await admin.connect();
    await admin.call('ACL', 'SETUSER', user, ...storeUserRules('acl3', password));
    await admin.quit();
  }
  const base = cluster.url.replace('redis+cluster://', `redis+cluster://${user}:${password}@`);
  const store = await openStore(`${base}?prefix=acl3&shards=3`);
  try {
    await store.registerInstance();
    const seeded = await store.seedMany(
      Array.from({ length: 30 }, () => ({ step: { type: 's', state: {} }, opName: 'op' })),
    );
    const { ids } = await store.scanRunnable(undefined, { limit: 100 });
    expect(ids.length).toBe(30);
    const held = await store.tryReserve(seeded[0]?.id as FateId);
    await held?.setStatus(Status.IN_PROGRESS);
    await held?.unreserve();
    expect((await store.read(seeded[0]?.id as FateId)).status).toBe(Status.IN_PROGRESS);
    expect((await store.liveInstances()).length).toBe(1);
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    await store.onWakeup(() => wake());
    await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
    await Promise.race([
      woken,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no wake-up in 5 s')), 5_000)),
    ]);
  } finally {
    await store.close();
  }
  let err: { code?: string } | undefined;
  try {
    await (await openStore(`${base}?prefix=other&shards=3`)).close();
  } catch (e) {
    err = e as { code?: string };
  }
  expect(err?.code).toBe('FATE_STORE_CONFIG');
});
