import { STORED_STATUSES, type Status } from '@fate/core';

/**
 * The names of every key of one store. All start with the hash tag `{<prefix>}`, so on a
 * Redis Cluster they land in one slot and the multi-key scripts stay legal there.
 */
export interface RedisKeys {
  /** `{prefix}`: the hash tag, and the start of every key below. */
  readonly tag: string;
  /** Start of the per-transaction hashes; the id follows. */
  readonly txPrefix: string;
  /** The hash of one transaction: status, stack, info, res_lock, res_uuid, defer_until. */
  tx(id: string): string;
  /** Sorted set, all scores 0: runnable, unreserved, not deferred ids, read by lex range. */
  readonly runnable: string;
  /** Sorted set scored by deferUntil: runnable, unreserved ids that wait for their time. */
  readonly deferred: string;
  /** Hash id → JSON `[lockId, uuid]` of every reserved transaction. */
  readonly reservations: string;
  /** One set of ids per stored status, so `list` reads only the statuses asked for. */
  status(status: Status): string;
  /** Every status set, in `STORED_STATUSES` order. */
  readonly statusSets: readonly string[];
  /** The liveness key of one instance (PX TTL = its timeout). */
  instance(id: string): string;
  /** Sorted set of instance ids scored by expiry, so liveness needs no KEYS/SCAN. */
  readonly instances: string;
  /** Pub/sub channel of wake-ups. */
  readonly wakeup: string;
}

export function redisKeys(prefix: string): RedisKeys {
  const tag = `{${prefix}}`;
  const txPrefix = `${tag}:tx:`;
  return Object.freeze({
    tag,
    txPrefix,
    tx: (id: string) => `${txPrefix}${id}`,
    runnable: `${tag}:runnable`,
    deferred: `${tag}:deferred`,
    reservations: `${tag}:reservations`,
    status: (status: Status) => `${tag}:status:${status}`,
    statusSets: Object.freeze(STORED_STATUSES.map((s) => `${tag}:status:${s}`)),
    instance: (id: string) => `${tag}:instance:${id}`,
    instances: `${tag}:instances`,
    wakeup: `${tag}:wakeup`,
  });
}

/**
 * KEYS of every script that changes one transaction, always in this order, so the Lua
 * side can name them by position: the record, the scan indexes, the reservation index
 * and the six status sets.
 */
export function recordScriptKeys(keys: RedisKeys, id: string): string[] {
  return [keys.tx(id), keys.runnable, keys.deferred, keys.reservations, ...keys.statusSets];
}
