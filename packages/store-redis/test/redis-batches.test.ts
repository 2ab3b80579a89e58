import { type FateId, newFateId, type Reservation, Status } from '@fate/core';
import { redisKeys } from '@fate/store-redis/internal';
import { describe, expect, it } from 'vitest';
import { newPrefix, useRedis } from './redis-context.js';

// The calls of one tick as one script call per shard (redis-batches.ts): each call fenced
// and answered as alone, one EVALSHA for the lot.
const redis = useRedis();

const engine: Reservation = { lockId: 'engine@1', uuid: 'e1' };
const admin: Reservation = { lockId: 'admin@1', uuid: 'a1' };
const record = { status: Status.SUBMITTED, stack: '[1]', info: '{}', op: 'op' } as const;

/** A backend on a fresh prefix with `n` SUBMITTED records. */
async function seeded(n: number) {
  const prefix = newPrefix();
  const backend = await redis.backend(redis.url(prefix));
  const ids = Array.from({ length: n }, () => newFateId());
  await backend.insertMany(ids.map((id) => ({ id, record })));
  return { prefix, backend, ids };
}

/** Script calls Redis ran since `CONFIG RESETSTAT`. */
async function scriptCalls(): Promise<number> {
  const info = await redis.admin.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

describe('Redis: the calls of one tick as one script call', () => {
  it('finishing writes of one tick: one script call, each fenced and answered alone', async () => {
    const { backend, ids } = await seeded(5);
    for (const id of ids) await backend.tryReserve(id, engine, true);
    await redis.admin.config('RESETSTAT');
    const finish = { status: Status.SUCCESSFUL, stack: '[]', release: { deferMs: 0 } };
    const answers = await Promise.all(
      ids.map((id, i) =>
        backend.write(id, i === 3 ? { ...engine, uuid: 'stale' } : engine, finish),
      ),
    );
    expect(answers).toEqual([true, true, true, false, true]);
    expect(await scriptCalls()).toBe(1);
    for (const [i, id] of ids.entries()) {
      const stored = await backend.read(id);
      if (i === 3) expect(stored).toMatchObject({ status: Status.IN_PROGRESS, stack: '[1]' });
      else expect(stored).toMatchObject({ status: Status.SUCCESSFUL, reservation: null });
    }
    expect(await backend.counts?.()).toEqual(
      expect.arrayContaining([
        { status: Status.SUCCESSFUL, op: 'op', count: 4 },
        { status: Status.IN_PROGRESS, op: 'op', count: 1 },
      ]),
    );
  });

  it('reservations of one tick: one script call', async () => {
    // what each answers, batched or not, is the conformance suite's ("the calls of one tick")
    const { backend, ids } = await seeded(3);
    await backend.tryReserve(ids[2] as FateId, admin);
    await redis.admin.config('RESETSTAT');
    const answers = await Promise.all(ids.map((id) => backend.tryReserve(id, engine, true)));
    expect(await scriptCalls()).toBe(1);
    expect(answers).toEqual([
      expect.objectContaining({ status: Status.SUBMITTED, reservation: engine }),
      expect.objectContaining({ status: Status.SUBMITTED, reservation: engine }),
      'held',
    ]);
  });

  it('close waits for the calls of its tick: they are sent and answered, not failed', async () => {
    const { prefix, ids } = await seeded(3);
    // a client of its own, closed by the case (not by the context after it)
    const { createRedisBackend } = await import('@fate/store-redis');
    const backend = createRedisBackend(redis.url(prefix));
    await backend.open();
    const answers = Promise.all(ids.map((id) => backend.tryReserve(id, engine, true)));
    await backend.close();
    expect(await answers).toEqual(
      ids.map(() => expect.objectContaining({ status: Status.SUBMITTED, reservation: engine })),
    );
  });

  it('a call that raises an error inside the batch fails alone; the others apply', async () => {
    const { prefix, backend, ids } = await seeded(3);
    // the middle record's key holds a string: HMGET on it raises WRONGTYPE in the script
    const broken = redisKeys(prefix)
      .shardOf(ids[1] as FateId)
      .tx(ids[1] as FateId);
    await redis.admin.del(broken);
    await redis.admin.set(broken, 'not a hash');
    await redis.admin.config('RESETSTAT');
    const settled = await Promise.allSettled(ids.map((id) => backend.tryReserve(id, engine, true)));
    expect(await scriptCalls()).toBe(1);
    expect(settled[0]).toMatchObject({ status: 'fulfilled', value: { reservation: engine } });
    expect(settled[1]).toMatchObject({
      status: 'rejected',
      reason: { code: 'FATE_STORE_UNAVAILABLE', message: expect.stringContaining('WRONGTYPE') },
    });
    expect(settled[2]).toMatchObject({ status: 'fulfilled', value: { reservation: engine } });
  });
});
