import { FateError, FateErrorCode } from '@fate/core';
import { Rc } from './zk-native.js';

/** A store-unavailable error that names the request but never its payload. */
export function unavailable(message: string, cause?: unknown): FateError {
  return new FateError(FateErrorCode.STORE_UNAVAILABLE, `ZooKeeper: ${message}`, { cause });
}

const RC_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(Rc).map(([k, v]) => [v, `Z${k}`]),
);

/**
 * Answers that no retry can change: the chroot's ACL refuses this client, or the chroot
 * lies under an ephemeral node (which can have no children). The store is configured
 * wrong, not away.
 */
const CONFIG_CODES: ReadonlySet<number> = new Set([
  Rc.NOAUTH,
  Rc.NOCHILDRENFOREPHEMERALS,
  Rc.AUTHFAILED,
  Rc.INVALIDACL,
]);

/** A request answered with an unexpected result code. */
export function failure(what: string, path: string, rc: number): FateError {
  const message = `${what} ${path} failed: ${RC_NAMES[rc] ?? 'error'} (${rc})`;
  if (!CONFIG_CODES.has(rc)) return unavailable(message);
  return new FateError(
    FateErrorCode.STORE_CONFIG,
    `ZooKeeper: ${message}; check the chroot, its ACL and the store's credentials`,
  );
}

const ACL_RACES = new WeakSet<object>();

/** Another client changed the ACL of a node fate just created, before fate set it. */
export function aclRaced(path: string): FateError {
  const raced = new FateError(
    FateErrorCode.STORE_CONFIG,
    `ZooKeeper: another client changed the ACL of ${path} between fate's create and its setACL (the node was open for that round trip): someone without fate's identity is writing fate's nodes; find who reaches the ensemble`,
  );
  ACL_RACES.add(raced);
  return raced;
}

/** Whether `err` is an `aclRaced` error. */
export function isAclRace(err: unknown): boolean {
  return typeof err === 'object' && err !== null && ACL_RACES.has(err);
}
