import { compareRunnable, type IdRange, inRange, type RunnablePosition } from '@fate/core';
import type { BatchMarker, ZkBatchMarkers } from './zk-batch-markers.js';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import { bucketsFor, MARKER_BUCKETS, type ZkLayout } from './zk-layout.js';
import { parseRunnableName } from './zk-marker-names.js';

/** A marked id at the priority level its marker names: a place in the runnable order. */
export interface Candidate {
  readonly id: string;
  readonly priority: number;
  /** A single marker (not only a batch) marks it at this level. */
  readonly single: boolean;
}

/** What one listing of a range's runnable buckets found. */
export interface Candidates {
  /** In the runnable order, from just after `after` (each `(level, id)` once). */
  readonly ordered: readonly Candidate[];
  /** `level|id` of every marked place, whatever `after` (to know a marker exists). */
  readonly marked: ReadonlySet<string>;
  readonly batches: readonly BatchMarker[];
  /** Marker names and batch markers read. */
  readonly itemsRead: number;
}

/** The key of a place in `Candidates.marked`. */
export const placeKey = (priority: number, id: string): string => `${priority}|${id}`;

/**
 * Lists the marker buckets of `range` (one request each, pipelined), reads their batch
 * markers, and orders every marked id of the range by `(priority descending, id
 * ascending)` from the names and batches alone: no record is read here, so a scan then
 * reads only the records of the page it answers (and the stale marks on the way).
 */
export async function listCandidates(
  client: ZkClient,
  layout: ZkLayout,
  batchMarkers: ZkBatchMarkers,
  range: IdRange | undefined,
  after: RunnablePosition | undefined,
): Promise<Candidates> {
  const buckets = bucketsFor(range, MARKER_BUCKETS);
  const lists = await pipelined(buckets, PIPELINE_DEPTH, (b) =>
    client.children(layout.markerBucket(b)),
  );
  const places = new Map<string, Candidate>();
  const add = (id: string, priority: number, single: boolean) => {
    if (!inRange(id, range)) return;
    const key = placeKey(priority, id);
    if (single || !places.has(key)) places.set(key, { id, priority, single });
  };
  const batchNames: Array<{ bucket: string; names: string[] }> = [];
  let itemsRead = 0;
  buckets.forEach((bucket, i) => {
    const names = lists[i] ?? [];
    itemsRead += names.length;
    const inBatches: string[] = [];
    for (const name of names) {
      const parsed = parseRunnableName(name);
      if (parsed?.kind === 'single') add(parsed.id, parsed.priority, true);
      else if (parsed?.kind === 'batch') inBatches.push(name);
    }
    if (inBatches.length > 0) batchNames.push({ bucket, names: inBatches });
  });
  const batches = (
    await pipelined(batchNames, PIPELINE_DEPTH, (b) => batchMarkers.read(b.bucket, b.names))
  ).flat();
  itemsRead += batches.length;
  for (const batch of batches) for (const e of batch.entries) add(e.id, e.priority, false);
  const ordered = [...places.values()]
    .filter((c) => after === undefined || compareRunnable(c, after) > 0)
    .sort(compareRunnable);
  return { ordered, marked: new Set(places.keys()), batches, itemsRead };
}
