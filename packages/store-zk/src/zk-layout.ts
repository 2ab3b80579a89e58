import { type IdRange, invalidArgument, type Reservation } from '@fate/core';
import { singleName } from './zk-marker-names.js';

/** The 256 bucket names of the records, `00` … `ff`, in order. */
export const BUCKETS: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).padStart(2, '0'),
);

/**
 * The 16 bucket names of the marker indexes (runnable and reserved), `0` … `f`: markers
 * are few (only runnable or held work), so a full listing reads 16 nodes, not 256, and
 * each of up to 16 range partitions still lists only its own.
 */
export const MARKER_BUCKETS: readonly string[] = Array.from({ length: 16 }, (_, i) =>
  i.toString(16),
);

/** The record bucket of an id: its first two hex digits. */
export function bucketOf(id: string): string {
  if (typeof id !== 'string' || !/^[0-9a-f]{2}[0-9a-f-]*$/.test(id)) {
    throw invalidArgument(`not a fate id: ${JSON.stringify(id)}`);
  }
  return id.slice(0, 2);
}

/** The marker bucket of an id: its first hex digit. */
export function markerBucketOf(id: string): string {
  return bucketOf(id).slice(0, 1);
}

// The smallest and largest ids (lowercase UUIDs); a bucket's ids share its prefix.
const LOWEST_ID = '00000000-0000-0000-0000-000000000000';
const HIGHEST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/**
 * The buckets (record buckets, or with `MARKER_BUCKETS` marker buckets) that can hold ids
 * of `range` (`start` inclusive, `end` exclusive), in order: a range scan lists only these.
 */
export function bucketsFor(
  range: IdRange | undefined,
  buckets: readonly string[] = BUCKETS,
): string[] {
  if (!range) return [...buckets];
  return buckets.filter(
    (b) =>
      (range.start === undefined || b + HIGHEST_ID.slice(b.length) >= range.start) &&
      (range.end === undefined || b + LOWEST_ID.slice(b.length) < range.end),
  );
}

/**
 * Text as a node name part: lock ids (`[A-Za-z0-9_.:@-]`) and uuids stay as they are,
 * anything else is percent-encoded, so a part never holds `/` or the `+` separator.
 */
export function encodeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.:@-]/gu, (c) =>
    Array.from(Buffer.from(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

function decodeName(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** A reservation marker's name, parsed. */
export interface ReservedName {
  readonly id: string;
  readonly lockId: string;
  readonly uuid: string;
}

/** Liveness node names start with this (older versions' ephemeral `i-` nodes do not). */
const INSTANCE_PREFIX = 'l-';

/**
 * Where everything lives under the chroot:
 *
 * ```
 * <chroot>/txs/<2 hex>/<id>                     one znode per transaction (the record)
 * <chroot>/runnable/<hex>/<id>                  empty marker: the record may be runnable
 * <chroot>/runnable/<hex>/~<uuid>               batch marker: the ids of a batch insert, one a line
 * <chroot>/runnable/<hex>/~p<level>.<id>        empty marker at a priority other than 0
 * <chroot>/runnable/<hex>/~p~<uuid>             batch marker with priorities: `<level> <id>` a line
 * <chroot>/reserved/<hex>/<id>+<lockId>+<uuid>  empty marker: the record may hold this reservation
 * <chroot>/instances/l-<lockId>                 liveness record: {ttlMs, state}; mtime = last beat
 * <chroot>/wakeup                               set when SUBMITTED work is inserted; watched
 * <chroot>/clock                                set at open (calibrates the clock); last of the setup
 * ```
 * Every bucket (256 + 16 + 16) is created at setup and never removed (a removal would
 * race with inserts), so an empty store holds 294 empty nodes and never more.
 */
export class ZkLayout {
  readonly root: string;
  readonly txs: string;
  readonly runnable: string;
  readonly reserved: string;
  readonly instances: string;
  readonly wakeup: string;
  readonly clock: string;

  constructor(chroot: string) {
    this.root = chroot;
    this.txs = `${chroot}/txs`;
    this.runnable = `${chroot}/runnable`;
    this.reserved = `${chroot}/reserved`;
    this.instances = `${chroot}/instances`;
    this.wakeup = `${chroot}/wakeup`;
    this.clock = `${chroot}/clock`;
  }

  /** Every node the setup makes sure of, parents first; `clock` (last) marks it done. */
  get skeleton(): string[] {
    return [
      this.txs,
      this.runnable,
      this.reserved,
      this.instances,
      this.wakeup,
      ...BUCKETS.map((b) => this.txBucket(b)),
      ...MARKER_BUCKETS.flatMap((b) => [this.markerBucket(b), this.reservedBucket(b)]),
    ];
  }

  txBucket(bucket: string): string {
    return `${this.txs}/${bucket}`;
  }

  markerBucket(bucket: string): string {
    return `${this.runnable}/${bucket}`;
  }

  reservedBucket(bucket: string): string {
    return `${this.reserved}/${bucket}`;
  }

  record(id: string): string {
    return `${this.txs}/${bucketOf(id)}/${id}`;
  }

  /** The single runnable marker of `id` at its record's priority (never changed after insert). */
  marker(id: string, priority?: number): string {
    return `${this.runnable}/${markerBucketOf(id)}/${singleName(id, priority)}`;
  }

  /**
   * One marker per reservation, named by it: its holder removes exactly its own with no
   * race, and a listing filters by range and lock id on names alone.
   */
  reservedMarker(id: string, reservation: Reservation): string {
    const name = `${id}+${encodeName(reservation.lockId)}+${encodeName(reservation.uuid)}`;
    return `${this.reservedBucket(markerBucketOf(id))}/${name}`;
  }

  /** The parts of a reservation marker's name, or undefined for anything else. */
  reservedOf(name: string): ReservedName | undefined {
    const [id, lockId, uuid, extra] = name.split('+').map(decodeName);
    if (extra !== undefined || !id || lockId === undefined || uuid === undefined) return undefined;
    return { id, lockId, uuid };
  }

  /** The liveness node of a lock id. */
  instance(lockId: string): string {
    return `${this.instances}/${INSTANCE_PREFIX}${encodeName(lockId)}`;
  }

  /** The lock id of a node name under `instances`, or undefined for other nodes. */
  lockIdOf(name: string): string | undefined {
    return name.startsWith(INSTANCE_PREFIX)
      ? decodeName(name.slice(INSTANCE_PREFIX.length))
      : undefined;
  }
}
