import type { FateId, NewRecord } from '@fate/core';
import { type RedisKeys, recordScriptKeys, type ShardKeys } from './redis-keys.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import type { RedisClient } from './redis-script.js';

/** Inserts one record unless its id exists (one script); whether it did. */
export async function insertOne(
  redis: RedisClient,
  keys: RedisKeys,
  id: FateId,
  record: NewRecord,
): Promise<boolean> {
  return (await RECORD_SCRIPTS.insert.run(redis, insertCall(keys, id, record))) === 1;
}

/**
 * Inserts each record unless its id exists: one pipeline of insert scripts per shard (a
 * Cluster pipeline must stay in one slot), all at once; whether each was inserted.
 */
export async function insertAll(
  redis: RedisClient,
  keys: RedisKeys,
  records: ReadonlyArray<{ id: FateId; record: NewRecord }>,
): Promise<boolean[]> {
  const byShard = new Map<ShardKeys, number[]>();
  records.forEach(({ id }, i) => {
    const shard = keys.shardOf(id);
    byShard.set(shard, [...(byShard.get(shard) ?? []), i]);
  });
  const out = new Array<boolean>(records.length).fill(false);
  await Promise.all(
    [...byShard.values()].map(async (indexes) => {
      const calls = indexes.map((i) => {
        const { id, record } = records[i] as { id: FateId; record: NewRecord };
        return insertCall(keys, id, record);
      });
      const replies = await RECORD_SCRIPTS.insert.runMany(redis, calls);
      indexes.forEach((i, j) => {
        out[i] = replies[j] === 1;
      });
    }),
  );
  return out;
}

function insertCall(keys: RedisKeys, id: FateId, record: NewRecord) {
  return {
    keys: recordScriptKeys(keys.shardOf(id), id),
    args: [
      id,
      record.status,
      record.stack,
      record.info,
      record.op,
      keys.wakeup,
      String(record.deferMs ?? 0),
      String(record.priority ?? 0),
    ],
  };
}
