import type { PartitionData } from '../partition.js';

/** Whether two partitions (or two "none"s) are the same share of the id space. */
export function samePartition(a: PartitionData | undefined, b: PartitionData | undefined): boolean {
  return a?.partition === b?.partition && a?.total === b?.total;
}
