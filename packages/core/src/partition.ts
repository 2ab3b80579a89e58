import type { FatesStore } from './contract/fates-store.js';
import type { IdRange, ScanOptions, ScanResult } from './contract/types.js';
import { invalidArgument } from './errors.js';
import type { FateId } from './ids.js';

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

/**
 * Finds the runnable ids of one partition, one page at a time: pass the `last` of a page
 * as `after` to read on (the finder walks its partition this way, in id order).
 */
export interface PartitionScanner {
  readonly strategy: 'hash' | 'range';
  scan(store: FatesStore, partition: PartitionData, options?: ScanOptions): Promise<ScanResult>;
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

const HEX = '0123456789abcdef';

/**
 * The smallest id greater than `id` (ids are canonical UUIDs, compared as strings): where
 * the next page of a scan starts. Undefined after the greatest id.
 */
export function idAfter(id: string): string | undefined {
  const chars = id.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const digit = HEX.indexOf(chars[i] as string);
    if (digit < 0) continue; // a dash stays where it is
    if (digit < 15) {
      chars[i] = HEX[digit + 1] as string;
      return chars.join('');
    }
    chars[i] = '0';
  }
  return undefined;
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

const EMPTY: ScanResult = Object.freeze({ ids: [], ops: [], priorities: [], itemsRead: 0, ms: 0 });

/** Reads every runnable id and keeps those that hash to the partition: cost ~ the whole store. */
export const hashPartitionScanner: PartitionScanner = {
  strategy: 'hash',
  async scan(store, p, options) {
    checkPartition(p);
    if (p.total === 0) return EMPTY;
    const all = await store.scanRunnable(undefined, options);
    const ids: FateId[] = [];
    const ops: string[] = [];
    const priorities: number[] = [];
    all.ids.forEach((id, i) => {
      if (hashPartitionOf(id, p.total) !== p.partition) return;
      ids.push(id);
      ops.push(all.ops[i] ?? '');
      priorities.push(all.priorities[i] ?? 0);
    });
    return { ...all, ids, ops, priorities };
  },
};

/** Asks the store for the partition's id range only: cost ~ store / total on a sorted store. */
export const rangePartitionScanner: PartitionScanner = {
  strategy: 'range',
  async scan(store, p, options) {
    checkPartition(p);
    if (p.total === 0) return EMPTY;
    return store.scanRunnable(partitionRange(p), options);
  },
};
