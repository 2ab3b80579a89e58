import { FateError, FateErrorCode } from '@fate/core';
import { Redis } from 'ioredis';
import { ioredisOptions, type RedisConfig } from './redis-config.js';
import type { RedisClient } from './redis-script.js';

/** `host:port/db` of a config, for messages (never the credentials). */
export function describeTarget(config: RedisConfig): string {
  return `${config.tls ? 'rediss' : 'redis'}://${config.host}:${config.port}/${config.db}`;
}

/** Any failure of a Redis call as the store's one operational error, with the cause kept. */
export function unavailable(config: RedisConfig, what: string, cause: unknown): FateError {
  if (cause instanceof FateError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new FateError(
    FateErrorCode.STORE_UNAVAILABLE,
    `Redis at ${describeTarget(config)}: ${what} failed: ${detail}`,
    { cause },
  );
}

/**
 * Opens one connection and waits until it is ready. ioredis reports connection errors as
 * events; they are kept quiet here (each failing call reports its own error), and the
 * connection keeps reconnecting in the background until it is closed.
 */
export async function connect(config: RedisConfig): Promise<Redis> {
  const redis = new Redis(ioredisOptions(config));
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw unavailable(config, 'connecting', err);
  }
  return redis;
}

/** Closes politely when the link is up (QUIT), at once otherwise; never throws. */
export async function disconnect(redis: RedisClient | undefined): Promise<void> {
  if (!redis) return;
  if (redis.status === 'ready') await redis.quit().catch(() => undefined);
  redis.disconnect();
}
