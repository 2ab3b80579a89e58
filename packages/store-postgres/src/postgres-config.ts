import {
  FateError,
  FateErrorCode,
  invalidArgument,
  readUrlParams,
  redactStoreUrl,
} from '@fate/core';

/** Where and how to open a PostgreSQL store. */
export interface PostgresConfig {
  /**
   * The server and database, as node-postgres takes it:
   * `postgres://user:password@host:5432/database` (`postgresql://` too; parameters such as
   * `sslmode` or `application_name` pass through to node-postgres).
   */
  readonly connectionString: string;
  /** The schema holding fate's tables, created if missing. Default `fate`. */
  readonly schema?: string;
  /** Connections in this client's pool. Default 10. */
  readonly poolSize?: number;
  /**
   * How long a query may go unanswered before it fails with `FATE_STORE_UNAVAILABLE` and
   * its connection is dropped (a frozen server, a dead link), ms. Default 10,000.
   */
  readonly queryTimeoutMs?: number;
}

/** A validated config: every default filled in, frozen. */
export interface ResolvedPostgresConfig {
  readonly connectionString: string;
  readonly schema: string;
  readonly poolSize: number;
  readonly queryTimeoutMs: number;
}

export const DEFAULT_SCHEMA = 'fate';
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/**
 * Schema names fate accepts: lowercase identifiers that need no quoting anywhere, short
 * enough that the wake-up channel `fate_wakeup_<schema>` fits PostgreSQL's 63 bytes.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** Validates `config` (a programmer mistake is a `TypeError`) and freezes it. */
export function resolvePostgresConfig(config: PostgresConfig): ResolvedPostgresConfig {
  if (typeof config !== 'object' || config === null) {
    throw invalidArgument('createPostgresStore needs a config object { connectionString }');
  }
  const {
    connectionString,
    schema = DEFAULT_SCHEMA,
    poolSize = DEFAULT_POOL_SIZE,
    queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS,
  } = config;
  if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//i.test(connectionString)) {
    throw invalidArgument('connectionString must be a postgres:// or postgresql:// URL');
  }
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw invalidArgument(`schema must match ${SCHEMA_NAME} (lowercase, at most 48 characters)`);
  }
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1_000) {
    throw invalidArgument('poolSize must be an integer in 1..1000');
  }
  if (!Number.isInteger(queryTimeoutMs) || queryTimeoutMs < 1) {
    throw invalidArgument('queryTimeoutMs must be a positive integer');
  }
  return Object.freeze({
    connectionString: withLibpqSsl(connectionString),
    schema,
    poolSize,
    queryTimeoutMs,
  });
}

/** The `sslmode` values libpq defines and node-postgres can honour. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'];

/**
 * `sslmode` with libpq's meaning, stated to node-postgres (`uselibpqcompat=true`), which
 * otherwise reads `require` and `verify-ca` as `verify-full` and warns that this will
 * change: `require` encrypts without checking the certificate (unless `sslrootcert` is
 * given: then as `verify-ca`), `verify-ca` checks the chain up to `sslrootcert`,
 * `verify-full` also the host name. node-postgres's own `no-verify` and libpq's `allow`
 * (no TLS unless the server insists) are refused.
 */
function withLibpqSsl(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw invalidArgument('connectionString must be a postgres:// or postgresql:// URL');
  }
  const mode = url.searchParams.get('sslmode');
  if (mode === null) return connectionString;
  if (!SSL_MODES.includes(mode)) {
    throw invalidArgument(`sslmode must be one of ${SSL_MODES.join(', ')} (libpq's meaning)`);
  }
  const compat = url.searchParams.get('uselibpqcompat');
  if (compat === 'true') return connectionString;
  if (compat !== null) {
    throw invalidArgument('fate reads sslmode as libpq does: leave out uselibpqcompat');
  }
  url.searchParams.set('uselibpqcompat', 'true');
  return url.href;
}

/**
 * Emits a warning (`process.emitWarning`, code `FATE_PG_CERT_UNCHECKED`) when this
 * connection's server certificate goes unchecked; a store calls it once at open:
 * `sslmode=require` without `sslrootcert`, and `sslmode=prefer` always (node-postgres
 * checks no certificate for it, even with `sslrootcert`). Without TLS there is none to check.
 */
export function warnIfUncheckedCertificate(connectionString: string): void {
  const params = new URL(connectionString).searchParams;
  const mode = params.get('sslmode');
  if (mode !== 'prefer' && (mode !== 'require' || params.has('sslrootcert'))) return;
  process.emitWarning(
    `PostgreSQL store ${redact(connectionString)}: sslmode=${mode} encrypts but does not check ` +
      "the server's certificate, so whoever is on the network path can pose as the server; " +
      'use sslmode=verify-full with sslrootcert=<CA file>',
    { code: 'FATE_PG_CERT_UNCHECKED' },
  );
}

/** The URL parameters fate reads itself; every other one is node-postgres's. */
const OWN_PARAMS = {
  schema: { kind: 'text', pattern: SCHEMA_NAME, hint: `a name matching ${SCHEMA_NAME}` },
  poolSize: { kind: 'integer', max: 1_000 },
  queryTimeoutMs: { kind: 'integer', max: 999_999_999 },
} as const;

/**
 * Parses `postgres://[user[:password]@]host[:port]/database[?schema=fate&poolSize=10]`
 * (or `postgresql://`). `schema`, `poolSize` and `queryTimeoutMs` are fate's; the other
 * parameters stay in the connection string for node-postgres. Anything malformed is a
 * `FateError` with code `FATE_BAD_URL`.
 */
export function parsePostgresUrl(url: string): PostgresConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url, 'try postgres://user@host:5432/database?schema=fate');
  }
  if (!/^postgres(ql)?:$/i.test(parsed.protocol) || parsed.hostname === '') {
    throw badUrl(url, 'try postgres://user@host:5432/database?schema=fate');
  }
  const fail = (why: string): never => {
    throw badUrl(url, why);
  };
  const { values, rest } = readUrlParams(parsed.search.slice(1), OWN_PARAMS, fail, {
    keepUnknown: true,
  });
  parsed.search = rest.toString();
  return { connectionString: parsed.href, ...values };
}

function badUrl(url: string, hint: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `not a PostgreSQL store URL: ${JSON.stringify(redact(url))} (${hint})`,
  );
}

/** The URL without its password (in the userinfo or a `password=` parameter), for messages. */
export const redact = redactStoreUrl;
