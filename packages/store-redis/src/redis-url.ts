import { FateError, FateErrorCode, readUrlParams } from '@fate/core';
import type { RedisConfig, RedisNode } from './redis-config.js';
import { MAX_SHARDS } from './redis-shards.js';

const FORMS =
  'redis[s]://[user:password@]host[:port][/db][?prefix=name&shards=n] or ' +
  'redis+cluster://[user:password@]host:port[,host:port…][?prefix=name&shards=n]';

function badUrl(url: string, why: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `bad Redis URL ${JSON.stringify(url)}: ${why} (expected ${FORMS})`,
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
export function parseUrlFields(url: string): Partial<RedisConfig> {
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
  const fields: Partial<RedisConfig> = {
    ...(cluster ? { nodes } : (nodes[0] as RedisNode)),
    db: dbText === '' ? 0 : Number(dbText),
    tls: scheme === 'rediss',
    ...parseCredentials(url, credentials),
  };
  return { ...fields, ...parseQuery(url, query) };
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
): Pick<Partial<RedisConfig>, 'username' | 'password'> {
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
} as const;

function parseQuery(url: string, query: string): Pick<Partial<RedisConfig>, 'prefix' | 'shards'> {
  const fail = (why: string): never => {
    throw badUrl(url, why);
  };
  return readUrlParams(query.replace(/^\?/, ''), PARAMS, fail).values;
}
