import type { BackendScan } from '../contract/backend.js';
import { checkPriority, DEFAULT_PRIORITY, type RunnablePosition } from '../contract/priority.js';
import type { IdRange, ScanOptions, ScanResult } from '../contract/types.js';
import { invalidArgument } from '../errors.js';
import { type FateId, isFateId } from '../ids.js';
import { idAfter } from '../partition.js';

/** Ids in one page unless the caller asks otherwise. */
export const DEFAULT_SCAN_LIMIT = 1_000;
const MAX_SCAN_LIMIT = 100_000;

/**
 * One page of a runnable scan: checks the range and options, asks the backend, and times
 * it. `after` goes to a backend with priorities as a place in the runnable order (with
 * `afterPriority`); for one without, it becomes the range's start.
 */
export async function scanPage(
  range: IdRange | undefined,
  options: ScanOptions = {},
  scan: (
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ) => Promise<BackendScan>,
  priorities = false,
): Promise<ScanResult> {
  checkRange(range);
  const limit = options.limit ?? DEFAULT_SCAN_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SCAN_LIMIT) {
    throw invalidArgument(`limit must be an integer in 1..${MAX_SCAN_LIMIT}`);
  }
  let bounded = range;
  let position: RunnablePosition | undefined;
  if (options.after !== undefined) {
    if (!isFateId(options.after)) throw invalidArgument('after must be a fate id');
    const priority = checkPriority(options.afterPriority);
    if (priorities) position = { priority, id: options.after };
    else {
      const start = idAfter(options.after);
      if (start === undefined) return { ids: [], ops: [], priorities: [], itemsRead: 0, ms: 0 };
      if (range?.start === undefined || start > range.start) bounded = { ...range, start };
    }
  } else if (options.afterPriority !== undefined) {
    throw invalidArgument('afterPriority goes with after');
  }
  const started = performance.now();
  const page = await scan(bounded, limit, position);
  return {
    ids: page.ids as FateId[],
    ops: page.ops,
    priorities: page.priorities ?? page.ids.map(() => DEFAULT_PRIORITY),
    itemsRead: page.itemsRead,
    ms: performance.now() - started,
    ...(page.nextDeferralAt ? { nextDeferralAt: page.nextDeferralAt } : {}),
    ...(page.last !== undefined
      ? { last: page.last, lastPriority: page.lastPriority ?? DEFAULT_PRIORITY }
      : {}),
  };
}

/** Checks a range's bounds (lowercase hex prefixes of ids, either may be absent). */
export function checkRange(range: IdRange | undefined): void {
  if (range === undefined) return;
  if (range === null || typeof range !== 'object') throw invalidArgument('range must be an object');
  for (const bound of [range.start, range.end]) {
    if (bound !== undefined && (typeof bound !== 'string' || !/^[0-9a-f-]*$/.test(bound))) {
      throw invalidArgument('range bounds are lowercase hex strings');
    }
  }
}
