import { FateError, FateErrorCode } from '@fate/core';
import Database from 'better-sqlite3';

/**
 * File-system errors that say the configured path cannot work (no permission, a file
 * where a directory should be, a name too long, a read-only file system): retrying does
 * not help, the configuration must change.
 */
const CONFIG_ERRNOS = new Set([
  'EACCES',
  'EPERM',
  'ENOTDIR',
  'EEXIST',
  'ENOENT',
  'EISDIR',
  'ELOOP',
  'ENAMETOOLONG',
  'EROFS',
]);

/**
 * SQLite errors that, while opening, mean the file itself is unusable as configured: it
 * cannot be opened or created, it is not a database, it is read-only. After a successful
 * open the same codes (a file replaced or remounted underneath) count as transient.
 */
const CONFIG_SQLITE_CODES = /^SQLITE_(CANTOPEN|NOTADB|READONLY|PERM|AUTH)/;

/** Where a failure happened: the file, and whether the store was being opened. */
export interface ErrorContext {
  readonly path: string;
  readonly opening: boolean;
}

/**
 * Maps a failure of the database file to a `FateError` with the original as `cause`:
 * `FATE_STORE_CONFIG` for what the configuration must fix (see above), with the path in
 * the message; `FATE_STORE_UNAVAILABLE` for the rest (SQLITE_BUSY past the busy timeout,
 * SQLITE_IOERR, SQLITE_FULL, SQLITE_CORRUPT, EIO, EMFILE, …). Anything else (a
 * `FateError`, a programmer mistake) passes through unchanged.
 */
export function toStoreError(err: unknown, what: string, where: ErrorContext): unknown {
  if (err instanceof FateError) return err;
  let config: boolean;
  if (err instanceof Database.SqliteError) {
    config = where.opening && CONFIG_SQLITE_CODES.test(err.code);
  } else if (isSystemError(err)) {
    config = CONFIG_ERRNOS.has(err.code);
  } else {
    return err;
  }
  const code = config ? FateErrorCode.STORE_CONFIG : FateErrorCode.STORE_UNAVAILABLE;
  const message = `SQLite store ${where.path}: ${what} failed (${err.code}): ${err.message}`;
  return new FateError(code, message, { cause: err });
}

/** A Node file-system error (from preparing the file's directory). */
function isSystemError(err: unknown): err is NodeJS.ErrnoException & { code: string } {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    typeof (err as NodeJS.ErrnoException).syscall === 'string'
  );
}
