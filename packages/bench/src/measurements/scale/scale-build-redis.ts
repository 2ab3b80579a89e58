import { randomUUID } from 'node:crypto';
import { Status } from '@fate/core';
import { parseRedisUrl } from '@fate/store-redis';
import { redisKeys, type ShardKeys } from '@fate/store-redis/internal';
import { Redis } from 'ioredis';
import { SPREAD_MS, STACK_JSON } from './scale-build.js';

// Redis: the same rows as the SQL builds, written straight as the store's scripts write
// them (the hash, the status set, the runnable or finished index, the ids index, the
// counts), by a loader script of this bench: one call per `BATCH` transactions of a shard,
// many calls in a pipeline (the client's per-command cost, not Redis, bounds a build of
// plain commands). `benchScale` reads the store back through the API before measuring.
const BATCH = 1_000;
const PIPELINE = 20;

/**
 * KEYS: the shard's SUBMITTED and SUCCESSFUL sets, runnable, finished, ids, counts.
 * ARGV: tx key prefix, stack of a runnable row, created, then (id, op, finished or '')
 * triples.
 */
const LOAD = `
local prefix, stack, created = ARGV[1], ARGV[2], ARGV[3]
for i = 4, #ARGV, 3 do
  local id, op, fin = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local tx = prefix .. id
  if fin == '' then
    redis.call('HSET', tx, 'status', 'SUBMITTED', 'stack', stack, 'op', op, 'defer_until', '0',
      'info', '{"opName":"' .. op .. '","created":' .. created .. '}')
    redis.call('SADD', KEYS[1], id)
    redis.call('ZADD', KEYS[3], 0, id .. '|' .. op)
    redis.call('HINCRBY', KEYS[6], 'SUBMITTED|' .. op, 1)
  else
    redis.call('HSET', tx, 'status', 'SUCCESSFUL', 'stack', '[]', 'op', op, 'defer_until', '0',
      'finished_at', fin, 'info', '{"opName":"' .. op .. '","created":' .. created ..
      ',"ageOff":' .. fin .. ',"returnValue":{"i":' .. ((i - 1) / 3) .. '}}')
    redis.call('SADD', KEYS[2], id)
    redis.call('ZADD', KEYS[4], fin, id)
    redis.call('HINCRBY', KEYS[6], 'SUCCESSFUL|' .. op, 1)
  end
  redis.call('ZADD', KEYS[5], 0, id)
end
return 1
`;

/** Redis: `n` transactions under the store at `url` (already opened once, so its layout is set). */
export async function buildRedis(url: string, n: number, now: number): Promise<void> {
  const config = parseRedisUrl(url);
  const keys = redisKeys(config.prefix, config.shards);
  const redis = new Redis({ host: config.host, port: config.port, db: config.db });
  const created = String(now - SPREAD_MS);
  try {
    const sha = (await redis.script('LOAD', LOAD)) as string;
    const byShard = new Map<ShardKeys, string[]>();
    let pipeline = redis.pipeline();
    let calls = 0;
    const send = async () => {
      const replies = (await pipeline.exec()) ?? [];
      const failed = replies.find(([err]) => err);
      if (failed) throw failed[0];
      pipeline = redis.pipeline();
      calls = 0;
    };
    const flush = async (shard: ShardKeys, args: string[]) => {
      const k = [shard.status(Status.SUBMITTED), shard.status(Status.SUCCESSFUL)];
      pipeline.evalsha(
        sha,
        6,
        ...k,
        shard.runnable,
        shard.finished,
        shard.ids,
        shard.counts,
        shard.txPrefix,
        STACK_JSON,
        created,
        ...args,
      );
      byShard.set(shard, []);
      if (++calls === PIPELINE) await send();
    };
    for (let i = 1; i <= n; i++) {
      const id = randomUUID();
      const shard = keys.shardOf(id);
      const fin = i % 10 === 0 ? '' : String(now - Math.floor((((i * 7919) % n) * SPREAD_MS) / n));
      const args = byShard.get(shard) ?? [];
      args.push(id, `op${i % 5}`, fin);
      byShard.set(shard, args);
      if (args.length === BATCH * 3) await flush(shard, args);
    }
    for (const [shard, args] of byShard) if (args.length > 0) await flush(shard, args);
    await send();
  } finally {
    redis.disconnect();
  }
}
