import { invalidArgument } from './errors.js';
import type { FateId } from './ids.js';
import type { FatesStore } from './store/fates-store.js';
import type { IdRange, ScanResult } from './store/types.js';

/** Which share of the work is this instance's: `partition` of `total` (seed PR). */
export interface PartitionData {
  readonly partition: number;
  readonly total: number;
}

export function checkPartition(p: PartitionData): PartitionData {
  if (
    !Number.isInteger(p?.total) ||
    p.total < 0 ||
    !Number.isInteger(p.partition) ||
    p.partition < 0 ||
    (p.total > 0 && p.partition >= p.total)
  ) {
    throw invalidArgument(`bad partition ${JSON.stringify(p)}: need 0 <= partition < total`);
  }
  return p;
}

/** Finds the runnable ids of one partition. */
export interface PartitionScanner {
  readonly strategy: 'hash' | 'range';
  scan(store: FatesStore, partition: PartitionData): Promise<ScanResult>;
}

const SPACE = 2 ** 32;
const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/**
 * The contiguous id range of a partition: the 32-bit prefix space cut into `total`
 * equal parts. Bounds are prefixes; ids compare as strings, so a sorted store can seek.
 */
export function partitionRange({ partition, total }: PartitionData): IdRange {
  const start = partition === 0 ? undefined : hex8(Math.floor((partition * SPACE) / total));
  const end =
    partition + 1 >= total ? undefined : hex8(Math.floor(((partition + 1) * SPACE) / total));
  return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

/** True when `id` lies in `range`. */
export function inRange(id: string, range: IdRange | undefined): boolean {
  if (!range) return true;
  return (
    (range.start === undefined || id >= range.start) && (range.end === undefined || id < range.end)
  );
}

/** FNV-1a of the id, so hash partitions do not depend on how ids were made. */
export function hashPartitionOf(id: FateId | string, total: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % total;
}

/** Reads every runnable id and keeps those that hash to the partition: cost ~ the whole store. */
export const hashPartitionScanner: PartitionScanner = {
  strategy: 'hash',
  async scan(store, p) {
    checkPartition(p);
    if (p.total === 0) return { ids: [], itemsRead: 0, ms: 0 };
    const all = await store.scanRunnable();
    return { ...all, ids: all.ids.filter((id) => hashPartitionOf(id, p.total) === p.partition) };
  },
};

/** Asks the store for the partition's id range only: cost ~ store / total on a sorted store. */
export const rangePartitionScanner: PartitionScanner = {
  strategy: 'range',
  async scan(store, p) {
    checkPartition(p);
    if (p.total === 0) return { ids: [], itemsRead: 0, ms: 0 };
    return store.scanRunnable(partitionRange(p));
  },
};
