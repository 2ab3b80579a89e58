import { FateError, FateErrorCode } from '@fate/core';
import type { ResolvedRedisConfig } from './redis-config.js';
import { describeTarget } from './redis-errors.js';
import { type RedisKeys, shardKeys } from './redis-keys.js';
import { indexPrelude } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

/**
 * KEYS: the layout record, fate 0.1's reservation hash, the indexes of a one-shard store,
 * then the query marker (all under `{prefix}`); a store created here gets the marker: its
 * query indexes (finished, due, ids, counts) are complete from the start. ARGV: the layout this client would record, the
 * transaction key prefix of a one-shard store. Returns the recorded layout.
 *
 * The first open records the layout. A store that has one-shard data but no record was
 * written by fate 0.1, which kept reservations in a hash and runnable ids without their
 * op: it is moved to this layout here, once and atomically (reservations into `reserved`
 * and `holders`, where the cleaner finds them; runnable members get their op, '' for
 * records that never had one), and recorded as `shards=1`.
 */
const LAYOUT = `${indexPrelude(3)}
local recorded = redis.call('GET', KEYS[1])
if recorded then return recorded end
local written = false
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    written = true
    break
  end
end
if not written then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[#KEYS], '1')
  return ARGV[1]
end
local held = redis.call('HGETALL', KEYS[2])
for i = 1, #held, 2 do
  local ok, r = pcall(cjson.decode, held[i + 1])
  if ok and type(r) == 'table' and type(r[1]) == 'string' and type(r[2]) == 'string' then
    hold(held[i], r[1], r[2])
  end
end
redis.call('DEL', KEYS[2])
for _, m in ipairs(redis.call('ZRANGE', RUNNABLE_KEY, 0, -1)) do
  if not string.find(m, '|', 1, true) then
    redis.call('ZREM', RUNNABLE_KEY, m)
    redis.call('ZADD', RUNNABLE_KEY, 0, m .. '|' .. (redis.call('HGET', ARGV[2] .. m, 'op') or ''))
  end
end
redis.call('SET', KEYS[1], 'shards=1')
return 'shards=1'
`;
export const LAYOUT_SCRIPT = new RedisScript('layout', LAYOUT);

/**
 * Checks that the store was created with this client's number of shards (recording it at
 * the first open); a client with another number could not find the data, so it fails to
 * open with `FATE_STORE_CONFIG`.
 */
export async function checkLayout(
  config: ResolvedRedisConfig,
  keys: RedisKeys,
  redis: RedisClient,
): Promise<void> {
  const mine = `shards=${config.shards}`;
  const oneShard = shardKeys(keys.tag);
  const recorded = await LAYOUT_SCRIPT.run(redis, {
    keys: [keys.layout, `${keys.tag}:reservations`, ...oneShard.indexes, keys.queries],
    args: [mine, oneShard.txPrefix],
  });
  if (recorded !== mine) {
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `Redis at ${describeTarget(config)}: the store "${config.prefix}" was created with ` +
        `${String(recorded)}, this client has ${mine}: open it with ?${String(recorded)}`,
    );
  }
}
