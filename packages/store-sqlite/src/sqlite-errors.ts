import { FateError, FateErrorCode } from '@fate/core';
import Database from 'better-sqlite3';

/**
 * Maps a failure of the database file (SQLITE_BUSY past the busy timeout, SQLITE_CANTOPEN,
 * SQLITE_IOERR, SQLITE_FULL, SQLITE_READONLY, a file that is not a database, an unusable
 * directory) to `FATE_STORE_UNAVAILABLE` with the original error as `cause`. Anything else
 * (a `FateError`, a programmer mistake) passes through unchanged.
 */
export function toStoreError(err: unknown, what: string): unknown {
  if (err instanceof FateError) return err;
  if (err instanceof Database.SqliteError || isSystemError(err)) {
    const code = (err as { code: string }).code;
    return new FateError(
      FateErrorCode.STORE_UNAVAILABLE,
      `SQLite store: ${what} failed (${code}): ${(err as Error).message}`,
      { cause: err },
    );
  }
  return err;
}

/** A Node file-system error (from creating the parent directory). */
function isSystemError(err: unknown): boolean {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    typeof (err as NodeJS.ErrnoException).syscall === 'string'
  );
}
