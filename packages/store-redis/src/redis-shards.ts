import { type IdRange, inRange, partitionRange } from '@fate/core';

/** Hash slots of a Redis Cluster. */
export const SLOTS = 16_384;

/** The most shards a store may have. */
export const MAX_SHARDS = 256;

/** CRC16/XMODEM, the checksum Redis Cluster takes modulo 16384 for a key's slot. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The Cluster slot of the hash tag `{tag}` (every key containing it). */
export function slotOfTag(tag: string): number {
  return crc16(tag) % SLOTS;
}

/**
 * The hash tags of `shards` shards of a store: `{prefix}` for one (the whole store in one
 * slot), else `{prefix#k.n}` for shard k, with the first n that puts it in the middle half
 * of the k-th of `shards` equal parts of the slot space. A Cluster whose masters own equal
 * runs of slots (what `redis-cli --cluster create` makes) then serves `shards` shards on
 * as many different masters as it can; '#' never occurs in a prefix, so no two stores'
 * tags meet. Every client computes the same tags from the prefix and the count alone.
 */
export function shardTags(prefix: string, shards: number): string[] {
  if (shards === 1) return [`{${prefix}}`];
  return Array.from({ length: shards }, (_, k) => {
    const width = SLOTS / shards;
    const low = k * width + width / 4;
    const high = k * width + (3 * width) / 4;
    for (let n = 0; ; n++) {
      const tag = `${prefix}#${k}.${n}`;
      const slot = slotOfTag(tag);
      if (slot >= low && slot < high) return `{${tag}}`;
    }
  });
}

/** The id range of each of `shards` shards: the partitions of the id space, in order. */
export function shardRanges(shards: number): IdRange[] {
  return Array.from({ length: shards }, (_, partition) =>
    partitionRange({ partition, total: shards }),
  );
}

/** Which shard (index) holds `id`. */
export function shardIndexOf(ranges: readonly IdRange[], id: string): number {
  return Math.max(
    0,
    ranges.findIndex((r) => inRange(id, r)),
  );
}

/** The indexes of the shards whose range overlaps `range` (all when undefined), in order. */
export function shardIndexesIn(ranges: readonly IdRange[], range: IdRange | undefined): number[] {
  return ranges.flatMap((r, i) => (overlaps(r, range) ? [i] : []));
}

/** True when two id ranges (start inclusive, end exclusive, either open) share an id. */
function overlaps(a: IdRange, b: IdRange | undefined): boolean {
  if (!b) return true;
  const aStartsFirst = a.start === undefined || b.end === undefined || a.start < b.end;
  const bStartsFirst = b.start === undefined || a.end === undefined || b.start < a.end;
  return aStartsFirst && bStartsFirst;
}
