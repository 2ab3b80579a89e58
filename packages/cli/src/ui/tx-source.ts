import type { FateId, FatesStore, Status, TxSummary } from '@fate/core';
import { type RowStatus, rowStatus } from '../admin/row-status.js';

/** What the transaction list asks for: filters the store applies, then a page after `after`. */
export interface TxQuery {
  /** Statuses shown (CORRUPT too); all when empty. */
  readonly statuses: readonly RowStatus[];
  readonly opName?: string;
  /** Ids after this one, in id order (the cursor of the previous page). */
  readonly after?: FateId;
  readonly limit: number;
  /** Rows the console filters itself after the store's filter (holder, deferral, age). */
  readonly keep?: (row: TxSummary) => boolean;
}

export interface TxPage {
  readonly rows: readonly TxSummary[];
  /** The cursor of the next page, when there is one. */
  readonly next?: FateId;
}

/** Counts by status (CORRUPT for records that cannot be decoded) and by op, at one time. */
export interface TxCounts {
  readonly at: number;
  readonly total: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly byOp: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly reserved: number;
}

/**
 * Where the console reads transactions. One interface, so the way it reads a large store
 * (paged listing, counts kept by the store) is changed in one place.
 */
export interface TxSource {
  page(query: TxQuery): Promise<TxPage>;
  counts(): Promise<TxCounts>;
}

/**
 * A `TxSource` over `FatesStore.list`, which answers every matching row at once. Pages are
 * cut from that answer, ordered by id; the console asks it for counts at most once per
 * sampling period whatever the number of viewers (see `CountSampler`).
 */
export function listSource(store: FatesStore): TxSource {
  return {
    async page(query) {
      const wanted = new Set(query.statuses);
      const storeStatuses =
        wanted.size > 0 && !wanted.has('CORRUPT') ? ([...wanted] as Status[]) : undefined;
      const rows = await store.list({
        ...(storeStatuses ? { statuses: storeStatuses } : {}),
        ...(query.opName ? { opName: query.opName } : {}),
      });
      const after = query.after;
      const kept = rows
        .filter(
          (r) =>
            (after === undefined || r.id > after) &&
            (wanted.size === 0 || wanted.has(rowStatus(r))),
        )
        .filter((r) => query.keep?.(r) ?? true)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const page = kept.slice(0, query.limit);
      const last = page[page.length - 1];
      return kept.length > query.limit && last ? { rows: page, next: last.id } : { rows: page };
    },
    async counts() {
      const rows = await store.list();
      const byStatus: Record<string, number> = {};
      const byOp: Record<string, Record<string, number>> = {};
      let reserved = 0;
      for (const r of rows) {
        const status = rowStatus(r);
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        const op = r.opName ?? '-';
        const counts = byOp[op] ?? {};
        counts[status] = (counts[status] ?? 0) + 1;
        byOp[op] = counts;
        if (r.reservation) reserved++;
      }
      return { at: store.now(), total: rows.length, byStatus, byOp, reserved };
    },
  };
}
