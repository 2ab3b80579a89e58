import { type IdRange, PRIORITY_LEVELS, STORED_STATUSES, type Status } from '@fate/core';
import { shardIndexesIn, shardIndexOf, shardRanges, shardTags } from './redis-shards.js';

/**
 * The keys of one shard: every key a transaction's scripts touch, under one hash tag, so
 * on a Redis Cluster they share one slot and each script stays on one node.
 */
export interface ShardKeys {
  /** `{…}`: the hash tag, and the start of every key below. */
  readonly tag: string;
  /** Start of the per-transaction hashes; the id follows. */
  readonly txPrefix: string;
  /** The hash of one transaction: status, stack, info, op, defer_until, res_lock, res_uuid. */
  tx(id: string): string;
  /** Sorted set, all scores 0: runnable, unreserved, not deferred ids, read by lex range. */
  readonly runnable: string;
  /** Sorted set scored by deferUntil: runnable, unreserved ids that wait for their time. */
  readonly deferred: string;
  /** Sorted set, scores 0, members `<id>|<lockId>|<uuid>`: reservations by id (range reads). */
  readonly reserved: string;
  /** Sorted set, scores 0, members `<lockId>|<id>|<uuid>`: reservations by holder. */
  readonly holders: string;
  /** One set of ids per stored status, so `list` reads only the statuses asked for. */
  status(status: Status): string;
  /** Sorted set of finished ids without their own retention, scored by finish time. */
  readonly finished: string;
  /** Sorted set of finished ids with their own retention, scored by due time. */
  readonly due: string;
  /** Sorted set, scores 0: every id, read by lex range (list pages). */
  readonly ids: string;
  /** Hash `<status>|<op>` → how many records have that status and op. */
  readonly counts: string;
  /**
   * The runnable set of each priority but 0 (`PRIORITY_LEVELS` order, 0 left out): members
   * as in `runnable`, which holds priority 0 (so a store written before priorities reads
   * all its records as 0, unchanged).
   */
  readonly levels: readonly string[];
  /**
   * The index keys, in the order the Lua prelude names them: runnable, deferred,
   * reserved, holders, the status sets in `STORED_STATUSES` order, then finished, due,
   * ids and counts, then `levels`.
   */
  readonly indexes: readonly string[];
}

/** The names of every key of one store. */
export interface RedisKeys {
  /** The hash tag of the store-wide keys below (liveness, wake-ups, layout): `{<prefix>}`. */
  readonly tag: string;
  /** The shards, in id order: shard k holds the k-th of as many equal ranges of ids. */
  readonly shards: readonly ShardKeys[];
  /** The shard that holds `id`. */
  shardOf(id: string): ShardKeys;
  /** The shards whose ids overlap `range` (all when undefined), in id order. */
  shardsIn(range: IdRange | undefined): ShardKeys[];
  /** A string naming the layout (`shards=<n>`), written at the first open, checked at every one. */
  readonly layout: string;
  /**
   * Set by the first open of a version that keeps the query indexes (finished, due, ids,
   * counts) from the start: a store without it answers those queries by a full read.
   */
  readonly queries: string;
  /** Start of the liveness keys; the lock id follows. */
  readonly instancePrefix: string;
  /** The liveness record of one lock id (a string with a PX TTL). */
  instance(lockId: string): string;
  /** Sorted set of lock ids scored by when their record expires (store clock). */
  readonly instances: string;
  /** Pub/sub channel of wake-ups. */
  readonly wakeup: string;
}

/**
 * The index keys of a shard, as suffixes of its tag, in the order of `ShardKeys.indexes`
 * (the Lua prelude builds the same names from the same list: `indexPrelude`).
 */
export const INDEX_SUFFIXES: readonly string[] = Object.freeze([
  ':runnable',
  ':deferred',
  ':reserved',
  ':holders',
  ...STORED_STATUSES.map((s) => `:status:${s}`),
  ':finished',
  ':due',
  ':ids',
  ':counts',
  ...PRIORITY_LEVELS.filter((p) => p !== 0).map((p) => `:runnable:${p}`),
]);

/** The keys of one shard under hash tag `tag` (`{…}`). */
export function shardKeys(tag: string): ShardKeys {
  const txPrefix = `${tag}:tx:`;
  const status = (s: Status) => `${tag}:status:${s}`;
  const indexes = Object.freeze(INDEX_SUFFIXES.map((suffix) => `${tag}${suffix}`));
  return Object.freeze({
    tag,
    txPrefix,
    tx: (id: string) => `${txPrefix}${id}`,
    runnable: `${tag}:runnable`,
    deferred: `${tag}:deferred`,
    reserved: `${tag}:reserved`,
    holders: `${tag}:holders`,
    status,
    finished: `${tag}:finished`,
    due: `${tag}:due`,
    ids: `${tag}:ids`,
    counts: `${tag}:counts`,
    levels: Object.freeze(
      PRIORITY_LEVELS.filter((p) => p !== 0).map((p) => `${tag}:runnable:${p}`),
    ),
    indexes,
  });
}

/**
 * The keys of a store of `shards` shards (default 1). With one, every key is under the
 * hash tag `{<prefix>}`, so the whole store lives in one Cluster slot. With more, each
 * shard's keys (transactions, runnable and reservation indexes, status sets) are under a
 * tag of their own (`shardTags`), so every per-transaction script still touches one slot,
 * and the store-wide keys stay under `{<prefix>}`.
 */
export function redisKeys(prefix: string, shards = 1): RedisKeys {
  const tag = `{${prefix}}`;
  const shardKeyList = shardTags(prefix, shards).map(shardKeys);
  const ranges = shardRanges(shards);
  const instancePrefix = `${tag}:instance:`;
  return Object.freeze({
    tag,
    shards: Object.freeze(shardKeyList),
    shardOf: (id: string) => shardKeyList[shardIndexOf(ranges, id)] as ShardKeys,
    shardsIn: (range: IdRange | undefined) =>
      shardIndexesIn(ranges, range).map((i) => shardKeyList[i] as ShardKeys),
    instancePrefix,
    instance: (lockId: string) => `${instancePrefix}${lockId}`,
    instances: `${tag}:instances`,
    wakeup: `${tag}:wakeup`,
    layout: `${tag}:layout`,
    queries: `${tag}:queries`,
  });
}

/**
 * KEYS of every script that changes one transaction: its hash, then the shard's runnable
 * set, from whose name the script builds those of the shard's other indexes (`indexPrelude`).
 */
export function recordScriptKeys(shard: ShardKeys, id: string): [string, string] {
  return [shard.tx(id), shard.runnable];
}

/** Every fate id is a canonical UUID: 36 characters. */
export const ID_LENGTH = 36;

/**
 * Lex bounds (ZRANGEBYLEX) of the members `<id>` or `<id>|…` of the ids in `range`:
 * `[` includes, `(` excludes, `-`/`+` are open. Ids are 36 characters and `|` sorts after
 * every id character, so a bound of up to 36 characters cuts members exactly as it cuts
 * ids. A longer bound sorts right after its first 36 characters (an id equal to those is
 * a prefix of it, so below it): it becomes "after every member of that id", byte 255
 * standing above any member text (UTF-8 never has it).
 */
export function idBounds(range: IdRange | undefined): [string | Buffer, string | Buffer] {
  const afterId = (bound: string) =>
    Buffer.concat([Buffer.from(`(${bound.slice(0, ID_LENGTH)}|`), Buffer.from([0xff])]);
  const { start, end } = range ?? {};
  return [
    start === undefined ? '-' : start.length > ID_LENGTH ? afterId(start) : `[${start}`,
    end === undefined ? '+' : end.length > ID_LENGTH ? afterId(end) : `(${end}`,
  ];
}
