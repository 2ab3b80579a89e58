import {
  type BackendScan,
  type InstanceRecord,
  type RecordWrite,
  type Reservation,
  type StoredRecord,
  sameReservation,
} from '@fate/core';
import type { Fence, ScanRow, WriteArgs } from './sql-queries.js';

// Turning rows into what the backend contract answers, and calls into query arguments:
// the same for every SQL store, whatever its driver.

export interface RecordColumns {
  status: string;
  stack: string;
  info: string;
  res_lock: string | null;
  res_uuid: string | null;
  defer_until: number;
  priority: number;
}

/** A row as the guard expects it: no reservation is `null`, never a half one. */
export function toRecord(row: RecordColumns): StoredRecord {
  return {
    status: row.status,
    stack: row.stack,
    info: row.info,
    reservation:
      row.res_lock === null ? null : { lockId: row.res_lock, uuid: row.res_uuid as string },
    deferUntil: row.defer_until,
    ...(row.priority ? { priority: Number(row.priority) } : {}),
  };
}

export function fence(id: string, reservation: Reservation): Fence {
  return { id, lockId: reservation.lockId, uuid: reservation.uuid };
}

/** The arguments of a fenced write (not a delete) of `change`. */
export function writeArgs(id: string, reservation: Reservation, change: RecordWrite): WriteArgs {
  const release = change.release;
  // No leading spread: Node 20 takes a slow path for the entries after one (about 1 µs each).
  return {
    id,
    lockId: reservation.lockId,
    uuid: reservation.uuid,
    status: change.status ?? null,
    stack: change.stack ?? null,
    info: change.info ?? null,
    // The fence proves the stored reservation is this one: keep it, or drop it.
    newLock: release ? null : reservation.lockId,
    newUuid: release ? null : reservation.uuid,
    // Whole ms: the column is an integer, and a deferral ends no earlier than asked.
    deferMs: release ? Math.ceil(release.deferMs) : null,
    finishMode: change.finished === undefined ? 0 : change.finished === null ? 1 : 2,
    finishAt: change.finished?.at ?? null,
    retainMs: change.finished?.retainMs ?? null,
  };
}

/**
 * What a failed `reserve` means, from the holder read after it: `absent`, `held` by
 * another reservation, or `free` (released or inserted between the two statements: try
 * again rather than report a stale "held").
 */
export function holderVerdict(
  holder: { res_lock: string | null; res_uuid: string | null } | undefined,
  reservation: Reservation,
): 'absent' | 'held' | 'free' {
  if (!holder) return 'absent';
  if (holder.res_lock === null) return 'free';
  const stored = { lockId: holder.res_lock, uuid: holder.res_uuid ?? '' };
  return sameReservation(stored, reservation) ? 'free' : 'held';
}

/**
 * A scan page from the rows a LIMIT-ed scan read: due ids with their ops, the earliest
 * deferral seen, and, when the page is full, its last row (due or not) to go on after.
 */
export function scanPage(rows: readonly ScanRow[], limit: number): BackendScan {
  const ids: string[] = [];
  const ops: string[] = [];
  const priorities: number[] = [];
  let nextDeferralAt: number | undefined;
  for (const row of rows) {
    if (row.due) {
      ids.push(row.id);
      ops.push(row.op);
      priorities.push(Number(row.priority));
    } else nextDeferralAt = Math.min(nextDeferralAt ?? row.defer_until, row.defer_until);
  }
  const last = rows.length === limit ? rows[rows.length - 1] : undefined;
  return {
    ids,
    ops,
    priorities,
    itemsRead: rows.length,
    ...(nextDeferralAt !== undefined ? { nextDeferralAt } : {}),
    ...(last !== undefined ? { last: last.id, lastPriority: Number(last.priority) } : {}),
  };
}

export interface ReservedRow {
  id: string;
  res_lock: string | null;
  res_uuid: string | null;
}

/** Held reservations from rows of the reserved index, only `lockId`'s when given. */
export function toReservations(
  rows: readonly ReservedRow[],
  lockId?: string,
): Array<{ id: string; reservation: Reservation }> {
  const out: Array<{ id: string; reservation: Reservation }> = [];
  for (const row of rows) {
    if (row.res_lock === null || (lockId !== undefined && row.res_lock !== lockId)) continue;
    out.push({ id: row.id, reservation: { lockId: row.res_lock, uuid: row.res_uuid as string } });
  }
  return out;
}

export interface LivenessRowRead {
  lock_id: string;
  state: string;
  lapsed: number | boolean;
}

/** The records still kept, and whether some rows are past their time (to prune). */
export function livenessRecords(rows: readonly LivenessRowRead[]): {
  records: InstanceRecord[];
  lapsed: boolean;
} {
  const records: InstanceRecord[] = [];
  let lapsed = false;
  for (const row of rows) {
    if (row.lapsed) lapsed = true;
    else records.push({ lockId: row.lock_id, state: row.state });
  }
  return { records, lapsed };
}
