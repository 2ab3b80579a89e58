import { FateError, FateErrorCode } from '@fate/core';

/**
 * SQLSTATEs that say the configuration cannot work, whenever they come: bad credentials
 * (class 28), no such database (3D000) or schema (3F000), no permission (42501).
 */
const CONFIG_SQLSTATES = /^(28|3D000|3F000|42501)/;

/**
 * Node errors that say the configured host cannot be found at all, that the server's TLS
 * certificate is not trusted (or does not name the host), or that a file the URL names
 * (`sslrootcert`) cannot be read.
 */
const CONFIG_ERRNOS = new Set([
  'ENOTFOUND',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A file the configuration names cannot be opened (not a socket: that server may come up). */
const unreadableFile = (err: { code?: unknown; syscall?: unknown }) =>
  (err.code === 'ENOENT' || err.code === 'EACCES') && err.syscall === 'open';

/**
 * Maps a failure to a `FateError` with the original as `cause`: `FATE_STORE_CONFIG` for
 * what the configuration must fix (see above); `FATE_STORE_UNAVAILABLE` for the rest — a
 * refused or lost connection, a server shutting down (57P01-57P03), too many connections
 * (53300), a query timeout, any other server error — which the guard may retry. A
 * `FateError` or a programmer mistake passes through unchanged.
 */
export function toStoreError(err: unknown, what: string, where: string): unknown {
  if (err instanceof FateError || err instanceof TypeError || err instanceof RangeError) {
    return err;
  }
  if (!(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  const config =
    (typeof code === 'string' && (CONFIG_SQLSTATES.test(code) || CONFIG_ERRNOS.has(code))) ||
    unreadableFile(err as { code?: unknown; syscall?: unknown });
  return new FateError(
    config ? FateErrorCode.STORE_CONFIG : FateErrorCode.STORE_UNAVAILABLE,
    `PostgreSQL store ${where}: ${what} failed${typeof code === 'string' ? ` (${code})` : ''}: ${err.message}`,
    { cause: err },
  );
}

/**
 * The server answered with an error of the statement itself, so it rolled back (nothing
 * applied): a SQLSTATE outside the classes of a lost connection (08), a server going away
 * or a cancelled statement (57) and lacking resources (53). A batch that failed so is sent
 * again call by call (`TickBatch`), so that a call the server refuses fails alone.
 */
export function rolledBack(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57|53)/.test(code);
}
