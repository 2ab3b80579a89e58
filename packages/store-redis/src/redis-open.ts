import type { ServerClock } from '@fate/core';
import { FateError, FateErrorCode } from '@fate/core';
import type { Cluster, Redis } from 'ioredis';
import { DELETE_AGED_OFF_SCRIPT } from './redis-age-off.js';
import { CLAIM_SCRIPT } from './redis-claims.js';
import type { ResolvedRedisConfig } from './redis-config.js';
import { connect, connectCluster, disconnect } from './redis-connection.js';
import { unavailable } from './redis-errors.js';
import { FINISH_CLAIM_SCRIPT } from './redis-finish-claims.js';
import type { RedisKeys } from './redis-keys.js';
import { LIST_PAGE_SCRIPT } from './redis-list-page.js';
import { LIVENESS_SCRIPTS } from './redis-liveness.js';
import { checkLayout, LAYOUT_SCRIPT } from './redis-migrations.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import { SCAN_SCRIPT } from './redis-scan.js';
import type { RedisClient } from './redis-script.js';

const ALL_SCRIPTS = [
  ...Object.values(RECORD_SCRIPTS),
  ...Object.values(LIVENESS_SCRIPTS),
  SCAN_SCRIPT,
  CLAIM_SCRIPT,
  FINISH_CLAIM_SCRIPT,
  LAYOUT_SCRIPT,
  DELETE_AGED_OFF_SCRIPT,
  LIST_PAGE_SCRIPT,
];

/**
 * Connects (a single Redis, or a Cluster when the config names seed nodes), loads every
 * script (on every master of a Cluster), calibrates the clock and checks that the store
 * was created with this client's number of shards.
 */
export async function openClient(
  config: ResolvedRedisConfig,
  keys: RedisKeys,
  clock: ServerClock,
  create = true,
): Promise<RedisClient> {
  const redis = config.nodes ? await connectCluster(config) : await connect(config);
  try {
    const nodes: Redis[] = config.nodes ? (redis as Cluster).nodes('master') : [redis as Redis];
    await Promise.all(nodes.flatMap((node) => ALL_SCRIPTS.map((script) => script.load(node))));
    await clock.timed(
      () => redis.time(),
      ([seconds, micros]) => Number(seconds) * 1_000 + Number(micros) / 1_000,
    );
    // the first open records the layout: without it there is no store under this prefix
    if (!create && (await redis.exists(keys.layout)) === 0) {
      throw new FateError(
        FateErrorCode.STORE_CONFIG,
        `Redis store: no such store: nothing under the prefix ${config.prefix} (opened without create)`,
      );
    }
    await checkLayout(config, keys, redis);
  } catch (err) {
    await disconnect(redis);
    throw unavailable(config, 'opening', err);
  }
  return redis;
}
