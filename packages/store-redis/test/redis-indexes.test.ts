import {
  type FateId,
  type NewRecord,
  newFateId,
  PRIORITY_LEVELS,
  STORED_STATUSES,
  Status,
} from '@fate/core';
import { createRedisBackend } from '@fate/store-redis';
import { indexPrelude, redisKeys } from '@fate/store-redis/internal';
import { describe, expect, it } from 'vitest';
import { newPrefix, step, useRedis } from './redis-context.js';

// What the Redis indexes promise beyond the shared suites: ops and pages from the scan
// alone, reservation listings that read only what was asked, and hygiene — index
// entries whose record is gone are repaired, not read forever.
const redis = useRedis();

const record = (op: string): NewRecord => ({
  status: Status.SUBMITTED,
  stack: '[]',
  info: '{}',
  op,
});

/** `n` fresh ids, ascending. */
const sortedIds = (n: number): FateId[] => Array.from({ length: n }, newFateId).sort();

describe('Redis runnable index', () => {
  it("returns each id's op from the scan, without reading info", async () => {
    const prefix = newPrefix();
    const store = await redis.open(redis.url(prefix));
    const a = await store.seed({ step, opName: 'alpha' });
    const b = await store.seed({ step, opName: 'beta' });
    // info no longer says anything: the op must come from beside the index
    for (const { id } of [a, b])
      await redis.admin.hdel(redisKeys(prefix).shards[0]?.tx(id) ?? '', 'info');
    const scan = await store.scanRunnable();
    const ops = new Map(scan.ids.map((id, i) => [id, scan.ops[i]]));
    expect(ops).toEqual(
      new Map([
        [a.id, 'alpha'],
        [b.id, 'beta'],
      ]),
    );
  });

  it('pages a scan: at most limit ids, and last only while more remain', async () => {
    const prefix = newPrefix();
    const backend = await redis.backend(redis.url(prefix));
    const ids = sortedIds(25);
    expect(await backend.insertMany(ids.map((id) => ({ id, record: record('op') })))).toEqual(
      ids.map(() => true),
    );
    const store = await redis.open(redis.url(prefix));
    const first = await store.scanRunnable(undefined, { limit: 10 });
    expect(first.ids).toEqual(ids.slice(0, 10));
    expect(first.last).toBe(ids[9]);
    const second = await store.scanRunnable(undefined, { limit: 10, after: first.last });
    expect(second.ids).toEqual(ids.slice(10, 20));
    expect(second.last).toBe(ids[19]);
    // a page that ends exactly at the end of the range says so: no empty page after it
    const rest = await store.scanRunnable(undefined, { limit: 5, after: second.last });
    expect(rest.ids).toEqual(ids.slice(20));
    expect(rest.last).toBeUndefined();
    // a bound longer than an id cuts as strings compare: after ids[4], up to ids[7] included
    const long = await backend.scanRunnable({ start: `${ids[4]}0`, end: `${ids[7]}0` }, 100);
    expect(long.ids).toEqual(ids.slice(5, 8));
  });

  it('answers insertMany per record, leaving existing records as they are', async () => {
    const backend = await redis.backend(redis.url(newPrefix()));
    const [a, b, c] = sortedIds(3) as [FateId, FateId, FateId];
    await backend.insert(b, record('first'));
    const answers = await backend.insertMany([
      { id: a, record: record('x') },
      { id: b, record: record('second') },
      { id: c, record: { ...record('y'), status: Status.NEW } },
    ]);
    expect(answers).toEqual([true, false, true]);
    expect((await backend.scanRunnable(undefined, 10)).ops).toEqual(['x', 'first']);
    expect((await backend.read(c))?.status).toBe(Status.NEW);
  });
});

describe('Redis reservation index', () => {
  it('lists only the range or the lock id asked for, in id order', async () => {
    const backend = await redis.backend(redis.url(newPrefix()));
    const ids = sortedIds(12);
    await backend.insertMany(ids.map((id) => ({ id, record: record('op') })));
    const lockOf = (i: number) => (i % 3 === 0 ? 'a@1' : 'b@2');
    for (const [i, id] of ids.entries()) {
      expect(await backend.tryReserve(id, { lockId: lockOf(i), uuid: `u${i}` })).not.toBe('held');
    }
    const all = await backend.reservations();
    expect(all.map((r) => r.id)).toEqual(ids);
    const range = { start: ids[3] as string, end: ids[8] as string };
    expect((await backend.reservations({ range })).map((r) => r.id)).toEqual(ids.slice(3, 8));
    const mine = await backend.reservations({ lockId: 'a@1' });
    expect(mine).toEqual(
      ids.flatMap((id, i) =>
        i % 3 === 0 ? [{ id, reservation: { lockId: 'a@1', uuid: `u${i}` } }] : [],
      ),
    );
    expect((await backend.reservations({ lockId: 'a@1', range })).map((r) => r.id)).toEqual([
      ids[3],
      ids[6],
    ]);
    expect(await backend.reservations({ lockId: 'a@' })).toEqual([]);
  });
});

describe('Redis index keys', () => {
  it('are named in the scripts, from the runnable set a call sends, as the client names them', async () => {
    // a script is sent one index key and builds the others' names: they must be the keys
    // the client reads (listings, counts, admin), on a sharded store too
    const statuses = STORED_STATUSES.map((s) => `STATUS_KEY['${s}']`);
    const levels = PRIORITY_LEVELS.filter((p) => p !== 0).map((p) => `LEVEL_KEY[${p}]`);
    const names = [
      'RUNNABLE_KEY, DEFERRED_KEY, RESERVED_KEY, HOLDERS_KEY',
      ...statuses,
      'FINISHED_KEY, DUE_KEY, IDS_KEY, COUNTS_KEY',
      ...levels,
    ];
    const lua = `${indexPrelude(1)}\nreturn {${names.join(', ')}, LEVEL_KEY[0]}`;
    for (const shard of [...redisKeys(newPrefix()).shards, ...redisKeys(newPrefix(), 3).shards]) {
      const got = await redis.admin.eval(lua, 1, shard.runnable);
      expect(got).toEqual([...shard.indexes, shard.runnable]);
    }
  });
});

describe('Redis index hygiene', () => {
  it('repairs index entries whose record was removed behind its back', async () => {
    const prefix = newPrefix();
    const shard = redisKeys(prefix).shards[0];
    if (!shard) throw new Error('no shard');
    const backend = await redis.backend(redis.url(prefix));
    const [runnable, deferred, reserved, kept] = sortedIds(4) as [FateId, FateId, FateId, FateId];
    await backend.insertMany(
      [runnable, deferred, reserved, kept].map((id) => ({ id, record: record('op') })),
    );
    const holder = { lockId: 'gone@1', uuid: 'u' };
    await backend.tryReserve(deferred, holder);
    await backend.write(deferred, holder, { release: { deferMs: 50 } });
    await backend.tryReserve(reserved, holder);
    await redis.admin.del(shard.tx(runnable), shard.tx(deferred), shard.tx(reserved));
    await new Promise((r) => setTimeout(r, 80));

    expect((await backend.scanRunnable(undefined, 100)).ids).toEqual([kept]);
    // the scan took the lost runnable and (due) deferred ids out of every index
    const indexed = async (id: string) => ({
      runnable: await redis.admin.zscore(shard.runnable, id),
      deferred: await redis.admin.zscore(shard.deferred, id),
      submitted: await redis.admin.sismember(shard.status(Status.SUBMITTED), id),
    });
    for (const id of [runnable, deferred]) {
      expect(await indexed(id)).toEqual({ runnable: null, deferred: null, submitted: 0 });
    }
    expect((await backend.scanRunnable(undefined, 100)).itemsRead).toBe(1);
    // a lost reserved record: listed until the fenced clear the cleaner makes repairs it
    expect((await backend.reservations()).map((r) => r.id)).toEqual([reserved]);
    expect(await backend.clearReservation(reserved, holder)).toBe(false);
    expect(await backend.reservations()).toEqual([]);
    expect(await redis.admin.zcard(shard.holders)).toBe(0);
    expect((await backend.list()).map((r) => r.id)).toEqual([kept]);
    expect(await redis.admin.smembers(shard.status(Status.SUBMITTED))).toEqual([kept]);
  });

  it('drops what the indexes say of a lost record when its id is inserted again', async () => {
    // insert walks every index only for an id still listed in `ids` (a record lost or
    // removed behind the store's back): the new record must carry none of the old entries
    const prefix = newPrefix();
    const shard = redisKeys(prefix).shards[0];
    if (!shard) throw new Error('no shard');
    const backend = await redis.backend(redis.url(prefix));
    const [finished, reserved] = sortedIds(2) as [FateId, FateId];
    await backend.insertMany([finished, reserved].map((id) => ({ id, record: record('op') })));
    const holder = { lockId: 'gone@1', uuid: 'u' };
    await backend.tryReserve(finished, holder, true);
    await backend.write(finished, holder, {
      status: Status.SUCCESSFUL,
      finished: {},
      release: { deferMs: 0 },
    });
    await backend.tryReserve(reserved, holder, true);
    await redis.admin.del(shard.tx(finished), shard.tx(reserved));

    const again = await backend.insertMany(
      [finished, reserved].map((id) => ({ id, record: record('op') })),
    );
    expect(again).toEqual([true, true]);
    for (const status of [Status.SUCCESSFUL, Status.IN_PROGRESS]) {
      expect(await redis.admin.smembers(shard.status(status))).toEqual([]);
    }
    expect(await redis.admin.zscore(shard.finished, finished)).toBeNull();
    expect(await redis.admin.zcard(shard.reserved)).toBe(0);
    expect(await redis.admin.zcard(shard.holders)).toBe(0);
    expect((await backend.scanRunnable(undefined, 100)).ids).toEqual([finished, reserved]);
    expect(await backend.reservations()).toEqual([]);
  });

  it('never claims a reserved record a stray runnable entry names, and drops the entry', async () => {
    const prefix = newPrefix();
    const shard = redisKeys(prefix).shards[0];
    if (!shard) throw new Error('no shard');
    const backend = await redis.backend(redis.url(prefix));
    const [held, free] = sortedIds(2) as [FateId, FateId];
    await backend.insertMany([held, free].map((id) => ({ id, record: record('op') })));
    const holder = { lockId: 'holder@1', uuid: 'u' };
    expect(typeof (await backend.tryReserve(held, holder, true))).toBe('object');
    // an entry the indexes' invariants rule out (a reserved record is in no runnable set),
    // as a lost write or an older version could leave it: the claim reads the record first
    await redis.admin.zadd(shard.runnable, 0, `${held}|op`);
    const claimer = { lockId: 'claimer@1', uuid: 'c' };
    const claimed = await backend.claimMany?.(undefined, [claimer, { ...claimer, uuid: 'd' }]);
    expect(claimed?.map((c) => c.id)).toEqual([free]);
    expect((await backend.read(held))?.reservation).toEqual(holder);
    expect(await redis.admin.zrangebylex(shard.runnable, `[${held}|`, `(${held}|\xff`)).toEqual([]);
  });

  it('drops status entries of lost records when listing', async () => {
    const prefix = newPrefix();
    const shard = redisKeys(prefix).shards[0];
    if (!shard) throw new Error('no shard');
    const backend = await redis.backend(redis.url(prefix));
    const [lost, kept] = sortedIds(2) as [FateId, FateId];
    await backend.insertMany(
      [lost, kept].map((id) => ({ id, record: { ...record(''), status: Status.NEW } })),
    );
    await redis.admin.del(shard.tx(lost));
    expect((await backend.list()).map((r) => r.id)).toEqual([kept]);
    expect(await redis.admin.smembers(shard.status(Status.NEW))).toEqual([kept]);
  });

  it('moves a record whose status was corrupted into the set of its new status only', async () => {
    const prefix = newPrefix();
    const shard = redisKeys(prefix).shards[0];
    if (!shard) throw new Error('no shard');
    const backend = await redis.backend(redis.url(prefix));
    const [id] = sortedIds(1) as [FateId];
    await backend.insert(id, record('op'));
    const holder = { lockId: 'h@1', uuid: 'u' };
    await backend.tryReserve(id, holder);
    await redis.admin.hset(shard.tx(id), 'status', '{not json');
    expect(
      await backend.write(id, holder, { status: Status.FAILED, release: { deferMs: 0 } }),
    ).toBe(true);
    expect(await redis.admin.smembers(shard.status(Status.SUBMITTED))).toEqual([]);
    expect(await redis.admin.smembers(shard.status(Status.FAILED))).toEqual([id]);
  });

  it('forgets liveness records, and their index entries, once expired or removed', async () => {
    const prefix = newPrefix();
    const keys = redisKeys(prefix);
    const backend = await redis.backend(redis.url(prefix));
    await backend.heartbeat('short@1', 'a', 100);
    await backend.heartbeat('removed@1', 'b', 60_000);
    await backend.heartbeat('kept@1', 'c', 60_000);
    expect((await backend.instances()).map((i) => i.lockId).sort()).toEqual([
      'kept@1',
      'removed@1',
      'short@1',
    ]);
    await redis.admin.del(keys.instance('removed@1'));
    await new Promise((r) => setTimeout(r, 150));
    expect(await backend.instances()).toEqual([{ lockId: 'kept@1', state: 'c' }]);
    expect(await redis.admin.zrange(keys.instances, 0, -1)).toEqual(['kept@1']);
  });

  it('keeps a record written last (a tombstone) for its ttl after the client closed', async () => {
    const prefix = newPrefix();
    const writer = createRedisBackend(redis.url(prefix));
    await writer.open();
    await writer.heartbeat('gone@1', '{"gone":true}', 5_000);
    await writer.close();
    expect(await redis.admin.pttl(redisKeys(prefix).instance('gone@1'))).toBeGreaterThan(4_000);
    const reader = await redis.backend(redis.url(prefix));
    expect(await reader.instances()).toEqual([{ lockId: 'gone@1', state: '{"gone":true}' }]);
  });
});
