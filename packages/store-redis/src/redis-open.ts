import { FateError, FateErrorCode, STORED_STATUSES } from '@fate/core';
import type { Cluster, Redis } from 'ioredis';
import type { ServerClock } from './redis-clock.js';
import type { RedisConfig } from './redis-config.js';
import { connect, connectCluster, disconnect } from './redis-connection.js';
import { describeTarget, unavailable } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import { LIVENESS_SCRIPTS } from './redis-liveness.js';
import { SCAN_SCRIPT } from './redis-runnable.js';
import { type RedisClient, RedisScript } from './redis-script.js';
import { RECORD_SCRIPTS } from './redis-scripts.js';

const ALL_SCRIPTS = [
  ...Object.values(RECORD_SCRIPTS),
  ...Object.values(LIVENESS_SCRIPTS),
  SCAN_SCRIPT,
];

/**
 * KEYS: the layout key, then the index keys a one-shard store keeps under `{prefix}`.
 * ARGV: the layout this client would record. Records it unless one is recorded (a store
 * with one-shard data but no record — written before layouts were recorded — counts as
 * `shards=1`); returns the recorded one.
 */
const LAYOUT = `
local recorded = redis.call('GET', KEYS[1])
if recorded then return recorded end
recorded = ARGV[1]
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    recorded = 'shards=1'
    break
  end
end
redis.call('SET', KEYS[1], recorded)
return recorded
`;
const LAYOUT_SCRIPT = new RedisScript('layout', LAYOUT);

/**
 * Connects (a single Redis, or a Cluster when the config names seed nodes), loads every
 * script (on every master of a Cluster), calibrates the clock and checks that the store
 * was created with this client's number of shards.
 */
export async function openClient(
  config: RedisConfig,
  keys: RedisKeys,
  clock: ServerClock,
): Promise<RedisClient> {
  const redis = config.nodes ? await connectCluster(config) : await connect(config);
  try {
    const nodes: Redis[] = config.nodes ? (redis as Cluster).nodes('master') : [redis as Redis];
    await Promise.all(nodes.flatMap((node) => ALL_SCRIPTS.map((script) => script.load(node))));
    await clock.timed(
      () => redis.time(),
      ([seconds, micros]) => Number(seconds) * 1_000 + Number(micros) / 1_000,
    );
    await checkLayout(config, keys, redis);
  } catch (err) {
    await disconnect(redis);
    throw unavailable(config, 'opening', err);
  }
  return redis;
}

async function checkLayout(config: RedisConfig, keys: RedisKeys, redis: RedisClient) {
  const mine = `shards=${config.shards}`;
  const tag = keys.tag;
  const oneShard = [`${tag}:runnable`, ...STORED_STATUSES.map((s) => `${tag}:status:${s}`)];
  const recorded = await LAYOUT_SCRIPT.run(redis, {
    keys: [keys.layout, ...oneShard],
    args: [mine],
  });
  if (recorded !== mine) {
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `Redis at ${describeTarget(config)}: the store "${config.prefix}" was created with ` +
        `${String(recorded)}, this client has ${mine}: open it with ?${String(recorded)}`,
    );
  }
}
