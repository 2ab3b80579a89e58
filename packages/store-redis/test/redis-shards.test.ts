import { randomUUID } from 'node:crypto';
import { type FateId, inRange, newFateId, partitionRange, Status } from '@fate/core';
import { parseRedisUrl } from '@fate/store-redis';
import { redisKeys, slotOfTag } from '@fate/store-redis/internal';
import { describe, expect, it } from 'vitest';
import { codeOf, newPrefix, step, useRedis } from './redis-context.js';

// The sharded layout, on a single Redis (a Cluster runs the conformance suites on it):
// each of S equal id ranges under a hash tag of its own, aimed at different slots.
const redis = useRedis();

const sharded = (prefix: string, shards: number) => `${redis.url(prefix)}&shards=${shards}`;
const record = { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' };
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
/** A fresh id in the `partition`-th of three equal ranges, so in that shard of three. */
const idIn = (partition: number): FateId => {
  for (;;) {
    const id = newFateId();
    if (inRange(id, partitionRange({ partition, total: 3 }))) return id;
  }
};

describe('Redis shards', () => {
  it('parses Cluster URLs and the shards parameter', async () => {
    expect(parseRedisUrl('redis+cluster://a:7000,[::1]:7001,b?prefix=jobs&shards=3')).toMatchObject(
      {
        host: 'a',
        port: 7000,
        nodes: [
          { host: 'a', port: 7000 },
          { host: '::1', port: 7001 },
          { host: 'b', port: 6379 },
        ],
        db: 0,
        prefix: 'jobs',
        shards: 3,
      },
    );
    expect(parseRedisUrl('redis://h?shards=4')).toMatchObject({ shards: 4 });
    expect(parseRedisUrl('redis://h')).toMatchObject({ shards: 1 });
    for (const bad of [
      'redis+cluster://a:1,b:2/3',
      'redis://a:1,b:2',
      'redis://h?shards=0',
      'redis://h?shards=257',
      'redis://h?shards=x',
      'redis+cluster://a:1,',
    ]) {
      expect(await codeOf(() => parseRedisUrl(bad)), bad).toBe('FATE_BAD_URL');
    }
  });

  it("computes Cluster slots as Redis does, and aims each shard's tag at its part of them", () => {
    // the examples of the Redis Cluster specification
    expect(slotOfTag('foo')).toBe(12182);
    expect(slotOfTag('somekey')).toBe(11058);
    expect(redisKeys('jobs').shards.map((s) => s.tag)).toEqual(['{jobs}']);
    const tags = redisKeys('jobs', 3).shards.map((s) => s.tag);
    expect(tags).toEqual(redisKeys('jobs', 3).shards.map((s) => s.tag)); // same for everyone
    tags.forEach((tag, k) => {
      const slot = slotOfTag(tag.slice(1, -1));
      expect(slot).toBeGreaterThanOrEqual(((k + 0.25) * 16_384) / 3);
      expect(slot).toBeLessThan(((k + 0.75) * 16_384) / 3);
    });
  });

  it("keeps each transaction under its range's tag, and pages scans across shards in id order", async () => {
    const prefix = newPrefix();
    const keys = redisKeys(prefix, 3);
    const store = await redis.open(sharded(prefix, 3));
    const seeded = await store.seedMany(Array.from({ length: 90 }, () => ({ step, opName: 'op' })));
    const ids = seeded.map((s) => s.id).sort();
    for (const id of ids) {
      const k = keys.shards.indexOf(keys.shardOf(id));
      const range = partitionRange({ partition: k, total: 3 });
      expect(id >= (range.start ?? '') && id < (range.end ?? 'g'), id).toBe(true);
      expect(await redis.admin.exists(keys.shardOf(id).tx(id))).toBe(1);
    }
    const paged: FateId[] = [];
    let after: string | undefined;
    do {
      const page = await store.scanRunnable(undefined, { limit: 7, ...(after ? { after } : {}) });
      paged.push(...page.ids);
      after = page.last;
    } while (after);
    expect(paged).toEqual(ids);
    // a range inside one shard reads that shard only
    const middle = partitionRange({ partition: 1, total: 3 });
    const scan = await store.scanRunnable(middle);
    expect(scan.itemsRead).toBe(
      ids.filter((id) => id >= (middle.start ?? '') && id < (middle.end ?? 'g')).length,
    );
    const h = await store.reserve(ids[0] as FateId);
    await h.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'unreserve' }]);
    expect((await store.list({ statuses: [Status.FAILED] })).map((s) => s.id)).toEqual([ids[0]]);
  });

  it('answers list pages, counts and age-off from its indexes across shards; an older store by a full read', async () => {
    const store = await redis.open(sharded(newPrefix(), 4));
    expect(store.queryCosts).toEqual({ ageOff: 'indexed', counts: 'indexed', listPage: 'indexed' });
    const seeded = await store.seedMany(
      Array.from({ length: 40 }, (_, i) => ({ step, opName: i % 2 ? 'odd' : 'even' })),
    );
    const finished = seeded[0]?.id as FateId;
    const h = await store.reserve(finished);
    await h.commit([
      { op: 'setStatus', status: Status.SUCCESSFUL },
      { op: 'setInfo', key: 'ageOff', value: store.now() - 10_000 },
      { op: 'unreserve' },
    ]);
    const ids: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await store.listPage({ limit: 7, ...(after ? { after } : {}) });
      ids.push(...page.rows.map((r) => r.id));
      if (!page.next) break;
      after = page.next;
    }
    expect(ids).toEqual(seeded.map((s) => s.id).sort());
    const counts = await store.counts();
    expect(counts.total).toBe(40);
    expect(counts.byOp).toEqual({ odd: 20, even: 20 });
    expect(counts.byStatus.SUCCESSFUL).toBe(1);
    expect((await store.ageOffDue({ retentionMs: 5_000 })).map((c) => c.id)).toEqual([finished]);
    // a store whose first open was by a version without these indexes: a full read
    const old = newPrefix();
    await (await redis.open(redis.url(old))).seed({ step, opName: 'op' });
    await redis.admin.del(redisKeys(old).queries);
    const reopened = await redis.open(redis.url(old));
    expect(reopened.queryCosts.counts).toBe('full-read');
    expect((await reopened.counts()).total).toBe(1);
  });

  it('pages a sparse filter over every shard: examines at most the window per page, every match once', async () => {
    const store = await redis.open(sharded(newPrefix(), 3));
    const seeded = await store.seedMany(
      Array.from({ length: 2_500 }, (_, i) => ({
        step,
        opName: i % 250 === 0 ? 'rare' : 'common',
      })),
    );
    const rare = seeded.filter((_, i) => i % 250 === 0).map((s) => s.id);
    const ids: string[] = [];
    let lastPage = 0;
    let after: string | undefined;
    for (; lastPage < 10; lastPage++) {
      const page = await store.listPage({
        opName: 'rare',
        limit: 100,
        ...(after ? { after } : {}),
      });
      ids.push(...page.rows.map((r) => r.id));
      if (!page.next) break;
      after = page.next;
    }
    // 2,500 ids and a window of 2,000 examined per page: two pages, each match once, in order
    expect(lastPage).toBe(1);
    expect(ids).toEqual([...rare].sort());
  });

  it("refuses a client whose number of shards is not the store's", async () => {
    const prefix = newPrefix();
    await (await redis.open(sharded(prefix, 3))).seed({ step, opName: 'op' });
    expect(await codeOf(redis.open(redis.url(prefix)))).toBe('FATE_STORE_CONFIG');
    expect(await codeOf(redis.open(sharded(prefix, 2)))).toBe('FATE_STORE_CONFIG');
    await redis.open(sharded(prefix, 3));
    // a store written before layouts were recorded has the one-shard layout
    const old = newPrefix();
    await (await redis.open(redis.url(old))).seed({ step, opName: 'op' });
    await redis.admin.del(redisKeys(old).layout);
    const err = await codeOf(redis.open(sharded(old, 3)));
    expect(err).toBe('FATE_STORE_CONFIG');
    expect(await redis.admin.get(redisKeys(old).layout)).toBe('shards=1');
  });

  it('moves a store written by fate 0.1 to this layout at its first open', async () => {
    const prefix = newPrefix();
    const tag = `{${prefix}}`;
    const [free, held] = [newFateId(), newFateId()];
    const record = { status: Status.SUBMITTED, stack: JSON.stringify([step]), info: '{}' };
    // fate 0.1: no op, runnable members are bare ids, reservations in a hash
    await redis.admin.hset(`${tag}:tx:${free}`, { ...record, defer_until: '0' });
    await redis.admin.zadd(`${tag}:runnable`, 0, free);
    await redis.admin.hset(`${tag}:tx:${held}`, { ...record, res_lock: 'old', res_uuid: 'u1' });
    await redis.admin.hset(`${tag}:reservations`, held, JSON.stringify(['old', 'u1']));
    await redis.admin.sadd(`${tag}:status:${Status.SUBMITTED}`, free, held);

    const store = await redis.open(redis.url(prefix), { livenessTimeoutMs: 300 });
    expect(await store.scanRunnable()).toMatchObject({ ids: [free], ops: [''] });
    const reservation = { lockId: 'old', uuid: 'u1' };
    expect(await store.reservations()).toEqual([{ id: held, reservation }]);
    expect(await redis.admin.exists(`${tag}:reservations`)).toBe(0);
    // the old holder never beats again: cleared after watching it for a timeout
    let cleared: unknown[] = [];
    for (let i = 0; i < 30 && cleared.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      cleared = await store.clearDeadReservations();
    }
    expect(cleared).toEqual([{ id: held, reservation }]);
    expect((await store.scanRunnable()).ids.sort()).toEqual([free, held].sort());
  });

  it('answers a repeated claim with what it took, though an earlier shard has work by then', async () => {
    const backend = await redis.backend(sharded(newPrefix(), 3));
    const later = [idIn(1), idIn(1)].sort();
    for (const id of later) await backend.insert(id, record);
    const rs = [1, 2, 3].map(() => ({ lockId: 'w1@claims', uuid: randomUUID() }));
    const first = (await backend.claimMany(undefined, rs)).sort(byId);
    expect(first.map((c) => c.id)).toEqual(later);
    // work arrives in the first shard before the claim, its reply lost, is asked again
    const early = idIn(0);
    await backend.insert(early, record);
    const again = (await backend.claimMany(undefined, rs)).sort(byId);
    expect(again.map((c) => c.id)).toEqual(later);
    expect(again.map((c) => c.record.reservation)).toEqual(first.map((c) => c.record.reservation));
    expect(again.map((c) => c.record.status)).toEqual([Status.IN_PROGRESS, Status.IN_PROGRESS]);
    expect((await backend.read(early))?.reservation).toBeNull();
  });

  it("finishes a record of one shard and claims the next from another's range (partitions changed)", async () => {
    const backend = await redis.backend(sharded(newPrefix(), 3));
    const done = idIn(0);
    const next = [idIn(1), idIn(1)].sort();
    for (const id of [done, ...next]) await backend.insert(id, record);
    const held = { lockId: 'w1@claims', uuid: randomUUID() };
    expect(await backend.tryReserve(done, held, true)).toMatchObject({ status: Status.SUBMITTED });
    // the finishing write lands in shard 0; the range this worker now claims from is shard 1's
    const rs = [1, 2, 3].map(() => ({ lockId: held.lockId, uuid: randomUUID() }));
    const range = partitionRange({ partition: 1, total: 3 });
    const change = { status: Status.SUCCESSFUL, release: { deferMs: 0 } };
    const got = await backend.finishAndClaim?.(done, held, change, range, rs);
    expect(got?.written).toBe(true);
    expect(got?.claimed.map((c) => c.id)).toEqual(next);
    expect((await backend.read(done))?.status).toBe(Status.SUCCESSFUL);
  });

  it('answers a repeated claim across shards in the runnable order: priority first, then id', async () => {
    const backend = await redis.backend(sharded(newPrefix(), 3));
    const low = idIn(0);
    const high = idIn(2);
    await backend.insert(low, record);
    await backend.insert(high, { ...record, priority: 5 });
    const rs = [1, 2].map(() => ({ lockId: 'w1@claims', uuid: randomUUID() }));
    const first = await backend.claimMany(undefined, rs);
    expect(first.map((c) => c.id)).toEqual([high, low]);
    // the reply was lost and the claim is asked again: what the shards hold, in the same order
    expect((await backend.claimMany(undefined, rs)).map((c) => c.id)).toEqual([high, low]);
  });
});
