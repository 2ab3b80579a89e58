import { type IdRange, invalidArgument } from '@fate/core';

/** The 256 bucket names of the records, `00` … `ff`, in order. */
export const BUCKETS: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).padStart(2, '0'),
);

/**
 * The 16 bucket names of the runnable markers, `0` … `f`: the marker index is small (only
 * runnable work), so a full scan lists 16 nodes, not 256, and each of up to 16 range
 * partitions still lists only its own.
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
 * Where everything lives under the chroot:
 *
 * ```
 * <chroot>/txs/<bucket>/<id>        one znode per transaction (the record)
 * <chroot>/runnable/<digit>/<id>    empty marker: the record may be runnable (a hint)
 * <chroot>/reserved/<id>+<uuid>     empty marker: the record may hold reservation <uuid>
 * <chroot>/instances/i-<id>         ephemeral liveness node, data = lease expiry
 * <chroot>/wakeup                   touched when SUBMITTED work is inserted; watched
 * ```
 * Buckets are created on first use and never removed (a removal would race with inserts).
 */
export class ZkLayout {
  readonly root: string;
  readonly txs: string;
  readonly runnable: string;
  readonly reserved: string;
  readonly instances: string;
  readonly wakeup: string;

  constructor(chroot: string) {
    this.root = chroot;
    this.txs = `${chroot}/txs`;
    this.runnable = `${chroot}/runnable`;
    this.reserved = `${chroot}/reserved`;
    this.instances = `${chroot}/instances`;
    this.wakeup = `${chroot}/wakeup`;
  }

  /** Every node `open` makes sure of, parents first; `wakeup` last marks a finished setup. */
  get skeleton(): string[] {
    return [this.txs, this.runnable, this.reserved, this.instances, this.wakeup];
  }

  txBucket(bucket: string): string {
    return `${this.txs}/${bucket}`;
  }

  markerBucket(bucket: string): string {
    return `${this.runnable}/${bucket}`;
  }

  record(id: string): string {
    return `${this.txs}/${bucketOf(id)}/${id}`;
  }

  marker(id: string): string {
    return `${this.runnable}/${markerBucketOf(id)}/${id}`;
  }

  /** One marker per reservation: its holder removes exactly its own, with no race. */
  reservedMarker(id: string, uuid: string): string {
    bucketOf(id); // validates the id
    return `${this.reserved}/${id}+${encodeURIComponent(uuid)}`;
  }

  /** The id and reservation uuid of a node name under `reserved`, or undefined. */
  reservedOf(name: string): { id: string; uuid: string } | undefined {
    const at = name.indexOf('+'); // never in an encoded uuid, nor in an id
    if (at < 0) return undefined;
    try {
      return { id: name.slice(0, at), uuid: decodeURIComponent(name.slice(at + 1)) };
    } catch {
      return undefined;
    }
  }

  /** Instance ids may hold any characters; node names may not be `.` or contain `/`. */
  instance(instanceId: string): string {
    return `${this.instances}/i-${encodeURIComponent(instanceId)}`;
  }

  /** The instance id of a node name under `instances`, or undefined for foreign nodes. */
  instanceIdOf(name: string): string | undefined {
    if (!name.startsWith('i-')) return undefined;
    try {
      return decodeURIComponent(name.slice(2));
    } catch {
      return undefined;
    }
  }
}
