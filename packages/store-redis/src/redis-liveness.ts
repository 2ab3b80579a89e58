import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { SCRIPTS } from './redis-scripts.js';

// Liveness is two things kept together by one script: a key per instance whose PX TTL is
// the timeout (Redis itself forgets a dead instance), and a sorted set of instance ids
// scored by expiry, so listing the live ones is one range read instead of KEYS or SCAN.

/** Entries that lapsed this long ago are dropped from the set on the next heartbeat. */
const FORGET_AFTER_MS = 60_000;

export async function heartbeat(
  redis: Redis,
  keys: RedisKeys,
  instanceId: string,
  timeoutMs: number,
): Promise<void> {
  const now = Date.now();
  await SCRIPTS.heartbeat.run(
    redis,
    [keys.instance(instanceId), keys.instances],
    [instanceId, timeoutMs, now + timeoutMs, now - FORGET_AFTER_MS],
  );
}

export async function removeInstance(
  redis: Redis,
  keys: RedisKeys,
  instanceId: string,
): Promise<void> {
  await SCRIPTS.removeInstance.run(
    redis,
    [keys.instance(instanceId), keys.instances],
    [instanceId],
  );
}

/** Ids whose expiry is after `now` (the same clock the heartbeats used). */
export async function liveInstances(redis: Redis, keys: RedisKeys, now: number): Promise<string[]> {
  return redis.zrangebyscore(keys.instances, `(${now}`, '+inf');
}
