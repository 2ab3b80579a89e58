import { resolve } from 'node:path';
import { FateError, FateErrorCode, invalidArgument, readUrlParams } from '@fate/core';

/** Where and how to open a SQLite store. */
export interface SqliteConfig {
  /** The database file; relative paths resolve against the working directory. */
  readonly path: string;
  /**
   * How long a statement may wait, in all, for another process's write lock before the
   * call fails with `FATE_STORE_UNAVAILABLE`, ms. Default 5,000. The wait never blocks the
   * event loop for more than a few ms at a time.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Create the file (and its missing parent directories) when absent. Default true; false
   * opens an existing store only (admin tools), and an absent one is `FATE_STORE_CONFIG`.
   */
  readonly create?: boolean;
}

/** A validated config: absolute path, every default filled in, frozen. */
export interface ResolvedSqliteConfig {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

/** Default wait for a busy write lock: long enough for any other writer's single statement. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Validates `config` (a programmer mistake is a `TypeError`) and freezes it; `create` is
 * the backend's open option (as on every backend), not part of the resolved config.
 */
export function resolveSqliteConfig(config: SqliteConfig): ResolvedSqliteConfig {
  if (typeof config !== 'object' || config === null) {
    throw invalidArgument('createSqliteStore needs a config object { path }');
  }
  const { path, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, create = true } = config;
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    throw invalidArgument('SQLite config needs a non-empty file path');
  }
  if (path === ':memory:') {
    // A private in-memory database would not be shared with any other client.
    throw invalidArgument('an SQLite store needs a file; use the memory: store for in-memory data');
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw invalidArgument('busyTimeoutMs must be an integer >= 0');
  }
  if (typeof create !== 'boolean') throw invalidArgument('create must be a boolean');
  return Object.freeze({ path: resolve(path), busyTimeoutMs });
}

/** The URL's one parameter: `mode=create` (the default) or `mode=open` (must exist). */
const PARAMS = { mode: { kind: 'choice', values: ['create', 'open'] } } as const;

/**
 * Parses `sqlite:<path>[?mode=open|create]`: `sqlite:./fate.db`, `sqlite:relative/x.db`,
 * `sqlite:/abs/x.db` or `sqlite:///abs/x.db`. The path is taken literally (no
 * percent-decoding); a `?` starts the parameters, whose only key is `mode` (`create`, the
 * default, or `open`: the store must exist). A file name containing `?` needs the config
 * object. Anything else is a `FateError` with code `FATE_BAD_URL`.
 */
export function parseSqliteUrl(url: string): SqliteConfig {
  const match = typeof url === 'string' ? /^sqlite:([^?]*)(?:\?(.*))?$/is.exec(url) : null;
  let path = match?.[1];
  if (path?.startsWith('//')) {
    // Only the empty authority of sqlite:///abs/path is meaningful for a local file.
    path = path.startsWith('///') ? path.slice(2) : undefined;
  }
  if (path === undefined || path === '' || path === ':memory:' || path.includes('\0')) {
    throw badUrl(url, 'try sqlite:./fate.db or sqlite:/abs/path.db');
  }
  const fail = (why: string): never => {
    throw badUrl(url, why);
  };
  const { mode } = readUrlParams(match?.[2] ?? '', PARAMS, fail).values;
  return mode === undefined ? { path } : { path, create: mode === 'create' };
}

function badUrl(url: string, hint: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `not an SQLite store URL: ${JSON.stringify(url)} (${hint})`,
  );
}
