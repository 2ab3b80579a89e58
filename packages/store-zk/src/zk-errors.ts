import { FateError, FateErrorCode } from '@fate/core';
import { Rc } from './zk-native.js';

/** A store-unavailable error that names the request but never its payload. */
export function unavailable(message: string, cause?: unknown): FateError {
  return new FateError(FateErrorCode.STORE_UNAVAILABLE, `ZooKeeper: ${message}`, { cause });
}

const RC_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(Rc).map(([k, v]) => [v, `Z${k}`]),
);

/** A request answered with an unexpected result code. */
export function failure(what: string, path: string, rc: number): FateError {
  return unavailable(`${what} ${path} failed: ${RC_NAMES[rc] ?? 'error'} (${rc})`);
}
