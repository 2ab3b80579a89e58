import { isIP } from 'node:net';
import { FateError, FateErrorCode, invalidArgument } from '@fate/core';
import type { RedisOptions } from 'ioredis';

/** Where and how a Redis store connects. Frozen once resolved. */
export interface RedisConfig {
  readonly host: string;
  readonly port: number;
  /** Logical database (SELECT); 0 unless the URL has `/<db>`. */
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** `rediss://`: connect over TLS. */
  readonly tls: boolean;
  /** Every key of the store lives under `{<prefix>}:`; default `fate`. */
  readonly prefix: string;
  /** How long one command may take before it fails with FATE_STORE_UNAVAILABLE, ms. */
  readonly commandTimeoutMs: number;
  /** How long opening a connection may take, ms. */
  readonly connectTimeoutMs: number;
}

/** What a caller may give `createRedisStore`: a URL, or fields (missing ones default). */
export type RedisConfigInput = string | Partial<RedisConfig>;

export const DEFAULT_PREFIX = 'fate';
const DEFAULTS = { port: 6379, db: 0, commandTimeoutMs: 5_000, connectTimeoutMs: 5_000 } as const;

// Braces would break the hash tag that keeps all of a store's keys in one Cluster slot.
const PREFIX = /^[\w.:-]{1,100}$/;

function badUrl(url: string, why: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `bad Redis URL ${JSON.stringify(url)}: ${why} (expected redis[s]://[user:password@]host[:port][/db][?prefix=name])`,
  );
}

/**
 * Parses `redis://[user:password@]host[:port][/db][?prefix=name]` (or `rediss://` for TLS).
 * A malformed URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * parseRedisUrl('redis://127.0.0.1:6379/2?prefix=jobs'); // { host, port: 6379, db: 2, prefix: 'jobs', … }
 */
export function parseRedisUrl(url: string): RedisConfig {
  if (typeof url !== 'string') throw badUrl(String(url), 'not a string');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url, 'not a URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw badUrl(url, `scheme must be redis: or rediss:, not ${parsed.protocol}`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw badUrl(url, 'no host');
  const port = parsed.port === '' ? DEFAULTS.port : Number(parsed.port);
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path))
    throw badUrl(url, `database must be a number, not "${path}"`);
  if (parsed.hash) throw badUrl(url, 'no #fragment allowed');
  let prefix: string = DEFAULT_PREFIX;
  for (const [key, value] of parsed.searchParams) {
    if (key !== 'prefix') throw badUrl(url, `unknown parameter "${key}" (only prefix)`);
    prefix = value;
  }
  if (!PREFIX.test(prefix)) throw badUrl(url, 'prefix must be 1-100 characters of [A-Za-z0-9_.:-]');
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = parsed.username ? decodeURIComponent(parsed.username) : undefined;
    password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  } catch {
    throw badUrl(url, 'bad percent-encoding in the credentials');
  }
  return resolveRedisConfig({
    host,
    port,
    db: path === '' ? 0 : Number(path),
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls: parsed.protocol === 'rediss:',
    prefix,
  });
}

/** Fills defaults and validates; a bad field is a programmer mistake (`FATE_INVALID_ARGUMENT`). */
export function resolveRedisConfig(input: RedisConfigInput): RedisConfig {
  if (typeof input === 'string') return parseRedisUrl(input);
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument('a Redis store needs a URL or a config object');
  }
  const config: RedisConfig = {
    host: input.host ?? '127.0.0.1',
    port: input.port ?? DEFAULTS.port,
    db: input.db ?? DEFAULTS.db,
    ...(input.username !== undefined ? { username: input.username } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
    tls: input.tls ?? false,
    prefix: input.prefix ?? DEFAULT_PREFIX,
    commandTimeoutMs: input.commandTimeoutMs ?? DEFAULTS.commandTimeoutMs,
    connectTimeoutMs: input.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
  };
  if (typeof config.host !== 'string' || config.host === '')
    throw invalidArgument('host must be a non-empty string');
  if (!Number.isInteger(config.port) || config.port < 1 || config.port > 65_535) {
    throw invalidArgument('port must be an integer in 1..65535');
  }
  if (!Number.isInteger(config.db) || config.db < 0)
    throw invalidArgument('db must be an integer >= 0');
  if (typeof config.tls !== 'boolean') throw invalidArgument('tls must be a boolean');
  if (typeof config.prefix !== 'string' || !PREFIX.test(config.prefix)) {
    throw invalidArgument('prefix must be 1-100 characters of [A-Za-z0-9_.:-]');
  }
  for (const key of ['commandTimeoutMs', 'connectTimeoutMs'] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1)
      throw invalidArgument(`${key} must be an integer >= 1`);
  }
  return Object.freeze(config);
}

/**
 * ioredis options that fail fast instead of queueing: a command sent while the link is
 * down is refused at once (no offline queue), commands in flight when it drops are
 * rejected rather than resent (a resend the guard does not know of could turn an applied
 * release into "not reserved"), and every command has a deadline. Reconnection goes on in
 * the background while `reconnect()` says so, so the store recovers.
 */
export function ioredisOptions(config: RedisConfig, reconnect: () => boolean): RedisOptions {
  return {
    host: config.host,
    port: config.port,
    db: config.db,
    ...(config.username !== undefined ? { username: config.username } : {}),
    ...(config.password !== undefined ? { password: config.password } : {}),
    // SNI takes a host name only; an IP address is checked against the certificate instead.
    ...(config.tls ? { tls: isIP(config.host) ? {} : { servername: config.host } } : {}),
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: config.commandTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    retryStrategy: (attempt) => (reconnect() ? Math.min(50 * attempt, 1_000) : null),
  };
}
