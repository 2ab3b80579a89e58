import type { BackendAgeOffQuery } from '@fate/core';
import type { RedisKeys } from './redis-keys.js';
import { indexPrelude } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/**
 * KEYS: one shard's runnable set (the other indexes are named after it). ARGV: the shard's
 * transaction key prefix, finishedBefore, now, then candidate ids. Deletes each candidate that is,
 * as the script runs, stored, unreserved, finished and due by its age-off entry: in `finished` at
 * or before finishedBefore, or in `due` at or before now (the SQL stores' condition). A candidate
 * deleted and seeded again meanwhile has no entry (its delete, or the insert of an id still
 * listed, took it out of every index), one finished again has its
 * new stamp, one reserved has res_lock: each is left. Returns how many it deleted; asked again
 * after a lost reply it finds them gone and answers 0 for those.
 */
const DELETE_AGED_OFF = `${indexPrelude(1)}
local prefix, before, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local n = 0
for i = 4, #ARGV do
  local id = ARGV[i]
  local tx = prefix .. id
  local r = redis.call('HMGET', tx, 'status', 'op', 'res_lock')
  if (r[1] == 'SUCCESSFUL' or r[1] == 'FAILED') and not r[3] then
    local f = redis.call('ZSCORE', FINISHED_KEY, id)
    local d = redis.call('ZSCORE', DUE_KEY, id)
    if (f and tonumber(f) <= before) or (d and tonumber(d) <= now) then
      recount(r[1], false, r[2])
      redis.call('DEL', tx)
      -- finished and unreserved: by the indexes' invariants it is in no runnable, deferred
      -- or reserved set, so only these hold it (not forget's walk of every set: a quarter
      -- of the commands); a stray entry elsewhere is dropped by the scan that meets it
      redis.call('SREM', STATUS_KEY[r[1]], id)
      redis.call('ZREM', FINISHED_KEY, id)
      redis.call('ZREM', DUE_KEY, id)
      redis.call('ZREM', IDS_KEY, id)
      n = n + 1
    end
  end
end
return n
`;

export const DELETE_AGED_OFF_SCRIPT = new RedisScript('deleteAgedOff', DELETE_AGED_OFF);

/**
 * Deletes those of `ids` that are due under `q`, unreserved and finished: one script call
 * per shard holding some of them (each shard's keys share a slot on a Cluster), all at once.
 */
export async function redisDeleteAgedOff(
  redis: RedisClient,
  keys: RedisKeys,
  ids: readonly string[],
  q: BackendAgeOffQuery,
): Promise<number> {
  const byShard = new Map<(typeof keys.shards)[number], string[]>();
  for (const id of ids) {
    const shard = keys.shardOf(id);
    byShard.set(shard, [...(byShard.get(shard) ?? []), id]);
  }
  const deleted = await Promise.all(
    [...byShard].map(([shard, shardIds]) =>
      DELETE_AGED_OFF_SCRIPT.run(redis, {
        keys: [shard.runnable],
        args: [shard.txPrefix, String(q.finishedBefore), String(q.now), ...shardIds],
      }),
    ),
  );
  return deleted.reduce<number>((sum, n) => sum + Number(n), 0);
}
