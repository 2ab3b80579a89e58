import type { ZkClient } from './zk-client.js';
import { unavailable } from './zk-errors.js';
import { millis, type ZkStat } from './zk-native.js';

/**
 * How long a marker that looks stale is kept anyway when the zxids cannot tell whether a
 * writer is between touching it and writing its record (an insert not yet created).
 * Writers that take longer than a third of this touch the marker again after their write (`MARKER_SLOW_MS`).
 * Ages are judged by the servers' clock: the marker's mtime against the client's estimate
 * of that clock, which is never ahead of it, so a marker is never judged older than it is.
 */
export const MARKER_GRACE_MS = 30_000;

/**
 * The two sides of that grace period, each a third of it so that both together, plus the
 * latencies they do not measure, stay within it:
 *  - a writer (an insert, a write, a reservation) whose record write was answered more
 *    than this after it sent its marker's touch touches the marker again after the write;
 *  - a lister (a scan, a reservation listing) judges a marker by its age only if it read
 *    the record less than this before it read the marker's stat: a judgement older than
 *    that may predate a writer's touch and record write that both came since.
 * Both are measured on this process's monotonic clock from before the first request was
 * sent, so a pause anywhere in between (even one before a reply is taken in) counts.
 */
export const MARKER_SLOW_MS = MARKER_GRACE_MS / 3;

/** True when a judgement made at `judgedAt` (`performance.now()`) is recent enough to act by age. */
export function recentJudgement(judgedAt: number | undefined): boolean {
  return judgedAt === undefined || performance.now() - judgedAt <= MARKER_SLOW_MS;
}

// Markers are empty znodes that index records (runnable ones, reserved ones) so a query
// reads the few marked records instead of all of them. The record always decides; the
// invariant that matters is "record in the indexed state ⇒ marker exists":
//  - a writer touches the marker BEFORE it writes the indexed state into the record, and
//    removes it only AFTER it wrote a state that is not indexed;
//  - a touch creates the marker or bumps its version and zxid;
//  - a repair deletes a marker only when it is provably stale: older (by zxid) than the
//    record's last write and conditional on the version it saw, so a writer that touched
//    it meanwhile (about to write its record) always keeps it.
// A crash anywhere leaves at worst a stale marker: one extra read until a repair.

/** Creates the marker (and its parent when missing), or bumps its version and zxid. */
export async function touchMarker(client: ZkClient, path: string, parent: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const created = await client.create(path, '', 0);
    if (created === 'ok') return;
    if (created === 'nonode') {
      await client.create(parent, '', 0);
      continue;
    }
    if ((await client.set(path, '', -1)) !== 'nonode') return;
  }
  throw unavailable(`${path} kept appearing and vanishing while it was touched`);
}

/**
 * Deletes a marker whose record is not (or no longer) in the indexed state, if it is
 * stale for sure: touched before the record's last write, or (when `absentRecordIsStale`
 * is false and the record is absent, as before an insert) untouched for the grace period
 * by the servers' clock — the latter only when the record was read at `judgedAt`
 * (`performance.now()` before its read was sent) at most `MARKER_SLOW_MS` before the
 * marker's stat came back here.
 */
export async function repairMarker(
  client: ZkClient,
  path: string,
  recordStat: ZkStat | undefined,
  absentRecordIsStale: boolean,
  judgedAt?: number,
): Promise<void> {
  const stat = await client.exists(path);
  if (!stat) return;
  const old =
    client.clock.now() - millis(stat.mtime) > MARKER_GRACE_MS && recentJudgement(judgedAt);
  const stale = recordStat ? stat.mzxid < recordStat.mzxid : absentRecordIsStale;
  if (stale || old) await client.delete(path, stat.version);
}

/**
 * Removes a marker unless it was touched at or after `recordZxid` (by a newer writer).
 * `seen` is its stat as read right behind that write; a marker touched since then fails
 * the version check and stays.
 */
export async function removeMarker(
  client: ZkClient,
  path: string,
  recordZxid: number,
  seen: ZkStat | undefined,
): Promise<void> {
  if (seen && seen.mzxid < recordZxid) await client.delete(path, seen.version);
}
