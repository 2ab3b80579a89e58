import {
  FateError,
  FateErrorCode,
  invalidArgument,
  readUrlParams,
  redactStoreUrl,
} from '@fate/core';
import { MAX_SHARDS } from './redis-shards.js';

/** One Redis node: host and port. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** A validated config: every default filled in, frozen. */
export interface ResolvedRedisConfig {
  readonly host: string;
  readonly port: number;
  /**
   * Seed nodes of a Redis Cluster: when given, the store connects with ioredis's `Cluster`
   * client (which finds every master from them) and `host`/`port` are the first seed.
   */
  readonly nodes?: readonly RedisNode[];
  /** Logical database (SELECT); 0 unless the URL has `/<db>`. A Cluster has only 0. */
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /**
   * `rediss://`: connect over TLS. The server's certificate is always verified (there is
   * no switch to skip it), against the system's CAs or `ca`, and must name the host.
   */
  readonly tls: boolean;
  /**
   * A PEM file of the CA certificates to trust instead of the system's, read at every
   * connect (URL: `?ca=/path/ca.pem`, percent-encoded). Only with `tls`.
   */
  readonly ca?: string;
  /** Every key of the store lives under `{<prefix>}` or a shard tag made from it; default `fate`. */
  readonly prefix: string;
  /**
   * Into how many shards (hash tags, so Cluster slots) the id space is cut; default 1, the
   * whole store under one tag. Every client of a store must use the same number: the first
   * open records it, and an open with another one fails with `FATE_STORE_CONFIG`.
   */
  readonly shards: number;
  /** How long one command may take before it fails with FATE_STORE_UNAVAILABLE, ms. */
  readonly commandTimeoutMs: number;
  /** How long opening a connection may take, ms. */
  readonly connectTimeoutMs: number;
}

/** Where and how to open a Redis store: any of the fields (missing ones default). */
export type RedisConfig = Partial<ResolvedRedisConfig>;

export const DEFAULT_PREFIX = 'fate';
const DEFAULTS = { commandTimeoutMs: 5_000, connectTimeoutMs: 5_000 } as const;

/**
 * Parses a store URL: `redis://[user:password@]host[:port][/db][?prefix=name&shards=n]`,
 * `rediss://…` for TLS, or `redis+cluster://[user:password@]host:port[,host:port…][?…]` for
 * a Redis Cluster. A malformed URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * parseRedisUrl('redis://127.0.0.1:6379/2?prefix=jobs'); // { host, port: 6379, db: 2, prefix: 'jobs', … }
 */
export function parseRedisUrl(url: string): ResolvedRedisConfig {
  return resolveRedisConfig(parseUrlFields(url));
}

/**
 * The fields with defaults filled in, validated and frozen; a bad field is a programmer
 * mistake (`FATE_INVALID_ARGUMENT`).
 */
export function resolveRedisConfig(input: RedisConfig): ResolvedRedisConfig {
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument('a Redis store needs a URL or a config object');
  }
  const nodes = input.nodes?.map((n) => Object.freeze({ host: n?.host, port: n?.port }));
  const config: ResolvedRedisConfig = {
    host: input.host ?? nodes?.[0]?.host ?? '127.0.0.1',
    port: input.port ?? nodes?.[0]?.port ?? DEFAULT_PORT,
    ...(nodes !== undefined ? { nodes: Object.freeze(nodes) } : {}),
    db: input.db ?? 0,
    ...(input.username !== undefined ? { username: input.username } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
    tls: input.tls ?? false,
    ...(input.ca !== undefined ? { ca: input.ca } : {}),
    prefix: input.prefix ?? DEFAULT_PREFIX,
    shards: input.shards ?? 1,
    commandTimeoutMs: input.commandTimeoutMs ?? DEFAULTS.commandTimeoutMs,
    connectTimeoutMs: input.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
  };
  for (const node of [config, ...(config.nodes ?? [])]) checkNode(node);
  if (config.nodes !== undefined && config.nodes.length === 0) {
    throw invalidArgument('nodes must name at least one Cluster node');
  }
  if (!Number.isInteger(config.db) || config.db < 0)
    throw invalidArgument('db must be an integer >= 0');
  if (config.nodes && config.db !== 0) throw invalidArgument('a Redis Cluster has only db 0');
  if (typeof config.tls !== 'boolean') throw invalidArgument('tls must be a boolean');
  if (config.ca !== undefined && (typeof config.ca !== 'string' || config.ca === '')) {
    throw invalidArgument('ca must be the path of a PEM file');
  }
  if (config.ca !== undefined && !config.tls) {
    throw invalidArgument('ca is for TLS connections: use a rediss:// URL (or tls: true)');
  }
  if (typeof config.prefix !== 'string' || !PREFIX.test(config.prefix)) {
    throw invalidArgument('prefix must be 1-100 characters of [A-Za-z0-9_.:-]');
  }
  if (!Number.isInteger(config.shards) || config.shards < 1 || config.shards > MAX_SHARDS) {
    throw invalidArgument(`shards must be an integer in 1..${MAX_SHARDS}`);
  }
  for (const key of ['commandTimeoutMs', 'connectTimeoutMs'] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1)
      throw invalidArgument(`${key} must be an integer >= 1`);
  }
  return Object.freeze(config);
}

function checkNode(node: RedisNode): void {
  if (typeof node.host !== 'string' || node.host === '')
    throw invalidArgument('host must be a non-empty string');
  if (!Number.isInteger(node.port) || node.port < 1 || node.port > 65_535) {
    throw invalidArgument('port must be an integer in 1..65535');
  }
}

const FORMS =
  'redis[s]://[user:password@]host[:port][/db][?prefix=name&shards=n&ca=path] or ' +
  'redis+cluster://[user:password@]host:port[,host:port…][?prefix=name&shards=n]';

function badUrl(url: string, why: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `bad Redis URL ${JSON.stringify(redactStoreUrl(url))}: ${why} (expected ${FORMS})`,
  );
}

// scheme, credentials, hosts, path, query, fragment. The WHATWG parser takes one host only.
const URL_PARTS = /^([a-z][a-z0-9+.-]*):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?(#.*)?$/i;

/** What a prefix may be. Braces would break the hash tags; '#' separates a shard number. */
export const PREFIX = /^[\w.:-]{1,100}$/;
export const DEFAULT_PORT = 6379;

/**
 * What a store URL says, as config fields (defaults are filled in later). Checks the URL's
 * own syntax (`FATE_BAD_URL`); the fields are validated like any others afterwards.
 */
export function parseUrlFields(url: string): RedisConfig {
  if (typeof url !== 'string') throw badUrl(String(url), 'not a string');
  const parts = URL_PARTS.exec(url);
  if (!parts) throw badUrl(url, 'not a URL');
  const [, rawScheme = '', credentials, hosts = '', path = '', query = '', fragment] = parts;
  const scheme = rawScheme.toLowerCase();
  if (!['redis', 'rediss', 'redis+cluster'].includes(scheme)) {
    throw badUrl(url, `scheme must be redis:, rediss: or redis+cluster:, not ${scheme}:`);
  }
  if (fragment) throw badUrl(url, 'no #fragment allowed');
  const nodes = hosts.split(',').map((h) => parseNode(url, h));
  const cluster = scheme === 'redis+cluster';
  if (!cluster && nodes.length > 1) throw badUrl(url, 'several hosts need redis+cluster://');
  const dbText = path.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,5}$/.test(dbText))
    throw badUrl(url, `database must be a number, not "${dbText}"`);
  if (cluster && dbText !== '' && Number(dbText) !== 0)
    throw badUrl(url, 'a Redis Cluster has only database 0');
  const fields: RedisConfig = {
    ...(cluster ? { nodes } : (nodes[0] as RedisNode)),
    db: dbText === '' ? 0 : Number(dbText),
    tls: scheme === 'rediss',
    ...parseCredentials(url, credentials),
  };
  const params = parseQuery(url, query);
  if (params.ca !== undefined && !fields.tls) throw badUrl(url, 'ca= needs a rediss:// URL');
  return { ...fields, ...params };
}

function parseNode(url: string, text: string): RedisNode {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d*))?$/.exec(text);
  const host = match?.[1]?.replace(/^\[(.*)\]$/, '$1');
  if (!match || !host) throw badUrl(url, text === '' ? 'no host' : `bad host "${text}"`);
  const port = match[2] === undefined || match[2] === '' ? DEFAULT_PORT : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw badUrl(url, `bad port in "${text}"`);
  return { host, port };
}

function parseCredentials(
  url: string,
  text: string | undefined,
): Pick<RedisConfig, 'username' | 'password'> {
  if (!text) return {};
  const colon = text.indexOf(':');
  const [user, pass] = colon < 0 ? [text, ''] : [text.slice(0, colon), text.slice(colon + 1)];
  try {
    return {
      ...(user ? { username: decodeURIComponent(user) } : {}),
      ...(pass ? { password: decodeURIComponent(pass) } : {}),
    };
  } catch {
    throw badUrl(url, 'bad percent-encoding in the credentials');
  }
}

const PARAMS = {
  prefix: { kind: 'text', pattern: PREFIX, hint: '1-100 characters of [A-Za-z0-9_.:-]' },
  shards: { kind: 'integer', max: MAX_SHARDS },
  ca: { kind: 'text', pattern: /^[^\0]+$/, hint: 'the path of a PEM file' },
} as const;

function parseQuery(url: string, query: string): Pick<RedisConfig, 'prefix' | 'shards' | 'ca'> {
  const fail = (why: string): never => {
    throw badUrl(url, why);
  };
  return readUrlParams(query.replace(/^\?/, ''), PARAMS, fail).values;
}
