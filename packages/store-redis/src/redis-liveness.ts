import type { InstanceRecord, ServerClock } from '@fate/core';
import type { RedisKeys } from './redis-keys.js';
import { LUA_SERVER_NOW } from './redis-lua-fragments.js';
import { type RedisClient, RedisScript } from './redis-script.js';

// Liveness records are opaque to the store: a key per lock id holding the guard's state,
// whose PX TTL makes Redis itself forget it (by the server's clock, and it outlives the
// client's connection), plus a sorted set of lock ids scored by when their key expires,
// so listing them is one range read instead of KEYS or SCAN. Both scripts drop index
// entries whose key is gone (expired, evicted, deleted by hand), so the set never grows.

/** KEYS: the lock id's key, instances. ARGV: lock id, state, ttlMs. Returns the server time. */
const HEARTBEAT = `${LUA_SERVER_NOW}
local now = server_now()
-- 1 ms more than asked: PX counts from a whole millisecond, which may be up to 1 ms early.
local ttl = tonumber(ARGV[3]) + 1
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], ms_text(now + ttl), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms_text(now))
return ms_text(now)
`;

/**
 * KEYS: instances. ARGV: liveness key prefix. Returns {[lockId, state, …], server time}:
 * every record still kept, soonest to expire first.
 */
const INSTANCES = `${LUA_SERVER_NOW}
local now = server_now()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms_text(now))
local out = {}
for _, lock in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local state = redis.call('GET', ARGV[1] .. lock)
  if state then
    out[#out + 1] = lock
    out[#out + 1] = state
  else
    redis.call('ZREM', KEYS[1], lock)
  end
end
return {out, ms_text(now)}
`;

export const LIVENESS_SCRIPTS = Object.freeze({
  heartbeat: new RedisScript('heartbeat', HEARTBEAT),
  instances: new RedisScript('instances', INSTANCES),
});

/** Creates or replaces the liveness record of `lockId`; Redis forgets it `ttlMs` later. */
export async function heartbeat(
  redis: RedisClient,
  keys: RedisKeys,
  clock: ServerClock,
  record: { lockId: string; state: string; ttlMs: number },
): Promise<void> {
  const { lockId, state, ttlMs } = record;
  await clock.timed(
    () =>
      LIVENESS_SCRIPTS.heartbeat.run(redis, {
        keys: [keys.instance(lockId), keys.instances],
        args: [lockId, state, Math.max(1, Math.ceil(ttlMs))],
      }),
    Number,
  );
}

/** Every liveness record Redis still keeps. */
export async function instances(
  redis: RedisClient,
  keys: RedisKeys,
  clock: ServerClock,
): Promise<InstanceRecord[]> {
  const [flat] = await clock.timed(
    async () =>
      (await LIVENESS_SCRIPTS.instances.run(redis, {
        keys: [keys.instances],
        args: [keys.instancePrefix],
      })) as [string[], string],
    ([, time]) => Number(time),
  );
  const out: InstanceRecord[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ lockId: flat[i] as string, state: flat[i + 1] as string });
  }
  return out;
}
