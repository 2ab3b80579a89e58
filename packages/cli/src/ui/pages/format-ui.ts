import type { InstanceRecordView, Reservation } from '@fate/core';
import { duration } from '../../admin/format.js';
import { clip } from '../clip.js';
import { type Html, html } from '../html.js';

/** A holder and whether its liveness record is current, as a table cell. */
export function holderCell(
  reservation: Reservation | undefined,
  records: ReadonlyMap<string, InstanceRecordView>,
): Html {
  if (!reservation) return html`<span class="muted">-</span>`;
  const r = records.get(reservation.lockId);
  let state: string;
  let kind: string;
  if (!r) [state, kind] = ['no liveness record', 'dead'];
  else if (r.gone) [state, kind] = ['closed', 'dead'];
  else if (r.current)
    [state, kind] = [`live, heartbeat ${duration(r.lastHeartbeatMsAgo ?? 0)} ago`, 'live'];
  else if (r.lastHeartbeatMsAgo === undefined) [state, kind] = ['no heartbeat time', 'dead'];
  else [state, kind] = [`no heartbeat for ${duration(r.lastHeartbeatMsAgo)}`, 'dead'];
  return html`<code>${clip(reservation.lockId, 120)}</code> <span class="${kind}">(${state})</span>`;
}

export const byLockId = (
  records: readonly InstanceRecordView[],
): ReadonlyMap<string, InstanceRecordView> => new Map(records.map((r) => [r.lockId, r]));

/** `in 4.2 s` while deferred, else `-`. */
export const deferral = (deferUntil: number, now: number): string =>
  deferUntil > now ? `in ${duration(deferUntil - now)}` : '-';

export const statusBadge = (status: string): Html =>
  html`<span class="status s-${status.toLowerCase()}">${status}</span>`;
