import {
  FateErrorCode,
  type FatesStore,
  isFateError,
  mapLimit,
  STORED_STATUSES,
  Status,
  type TxRow,
} from '@fate/core';
import { CORRUPT, type RowStatus } from '../admin/row-status.js';

/** Who holds the rows listed: anyone or nobody, a holder that looks live, one that does not. */
export type HolderFilter = 'any' | 'live' | 'dead' | 'none';

/** What the transaction list asks for. */
export interface TxQuery {
  /** Statuses shown (CORRUPT too); all when empty. */
  readonly statuses: readonly RowStatus[];
  readonly opName?: string;
  readonly holder: HolderFilter;
  /** Whether deferred; either when undefined. */
  readonly deferred?: boolean;
  /** Only those created at least this long ago (store clock), ms; 0 for any. */
  readonly minAgeMs: number;
  /** Ids after this one, in id order (the cursor of the previous page). */
  readonly after?: string;
  readonly limit: number;
  /** Whether a lock id's liveness record is current (for `holder`). */
  readonly isLive: (lockId: string) => boolean;
}

/** A listed transaction: the store's row and what its record adds. */
export interface TxListRow extends TxRow {
  readonly shown: RowStatus;
  readonly created?: number;
  readonly top?: string;
  readonly stackDepth?: number;
}

export interface TxPage {
  readonly rows: readonly TxListRow[];
  /** The cursor of the next page, when rows may follow. */
  readonly next?: string;
  /** Rows the store listed to make this page. */
  readonly scanned: number;
}

/** Counts by status (CORRUPT for statuses that do not decode) and by op, at one time. */
export interface TxCounts {
  readonly at: number;
  readonly total: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly byOp: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Where the console reads transactions: the store's paged listing and counts. */
export interface TxSource {
  page(query: TxQuery): Promise<TxPage>;
  counts(): Promise<TxCounts>;
}

/** Store pages read for one list page at most, when the console's own filters drop rows. */
const MAX_STORE_PAGES = 10;
/** Records read at once for the rows shown. */
const READS_IN_FLIGHT = 8;

/**
 * A `TxSource` over `FatesStore.listPage` and `counts`: a page of the list costs about
 * `limit` rows listed plus one read per row shown (for its age and top step), whatever the
 * store's size where the backend indexes them (`queryCosts`). Filters the store does not
 * know (a holder's liveness, age, CORRUPT) are applied here, over at most
 * `MAX_STORE_PAGES` store pages: a page can then be short, with `next` set.
 */
export function storeSource(store: FatesStore): TxSource {
  return {
    async page(q) {
      const wanted = new Set(q.statuses);
      const byStore = wanted.size > 0 && !wanted.has(CORRUPT);
      const base = {
        ...(byStore ? { statuses: [...wanted] as Status[] } : {}),
        ...(q.opName ? { opName: q.opName } : {}),
        ...(q.holder === 'none' ? { reserved: false } : {}),
        ...(q.holder === 'live' || q.holder === 'dead' ? { reserved: true } : {}),
        ...(q.deferred !== undefined ? { deferred: q.deferred } : {}),
      };
      const rows: TxListRow[] = [];
      let after = q.after;
      let scanned = 0;
      for (let i = 0; i < MAX_STORE_PAGES; i++) {
        const page = await store.listPage({ ...base, ...(after ? { after } : {}), limit: q.limit });
        scanned += page.rows.length;
        const candidates = page.rows.filter((r) => {
          if (q.holder === 'live') return !!r.reservation && q.isLive(r.reservation.lockId);
          if (q.holder === 'dead') return !!r.reservation && !q.isLive(r.reservation.lockId);
          return true;
        });
        const detailed = await mapLimit(candidates, READS_IN_FLIGHT, (r) => detail(store, r));
        const now = store.now();
        for (const r of detailed) {
          // deleted since it was listed, or not of a wanted status once its record was read
          if (r === undefined || (wanted.size > 0 && !wanted.has(r.shown))) continue;
          if (q.minAgeMs > 0 && (r.created === undefined || now - r.created < q.minAgeMs)) continue;
          rows.push(r);
          if (rows.length === q.limit) {
            const more = r.id !== page.rows[page.rows.length - 1]?.id || page.next !== undefined;
            return { rows, scanned, ...(more ? { next: r.id } : {}) };
          }
        }
        if (page.next === undefined) return { rows, scanned };
        after = page.next;
      }
      return { rows, scanned, ...(after ? { next: after } : {}) };
    },
    async counts() {
      const c = await store.counts();
      const shown = (s: string) =>
        (STORED_STATUSES as readonly string[]).includes(s) ? s : CORRUPT;
      const byStatus: Record<string, number> = {};
      for (const [s, n] of Object.entries(c.byStatus))
        byStatus[shown(s)] = (byStatus[shown(s)] ?? 0) + n;
      const byOp: Record<string, Record<string, number>> = {};
      for (const { opName, status, count } of c.byOpStatus) {
        const op = opName === '' ? '-' : opName;
        const o = byOp[op] ?? {};
        o[shown(status)] = (o[shown(status)] ?? 0) + count;
        byOp[op] = o;
      }
      return { at: store.now(), total: c.total, byStatus, byOp };
    },
  };
}

/** The row with its record's age, top step and depth; a record that does not decode says so. */
async function detail(store: FatesStore, row: TxRow): Promise<TxListRow | undefined> {
  const shown = row.corrupt !== undefined ? CORRUPT : row.status;
  if (row.corrupt !== undefined) return { ...row, shown };
  try {
    const view = await store.read(row.id);
    if (view.status === Status.UNKNOWN) return undefined;
    const top = view.stack[view.stack.length - 1]?.type;
    return {
      ...row,
      shown,
      ...(view.info.created !== undefined ? { created: view.info.created } : {}),
      ...(top !== undefined ? { top } : {}),
      stackDepth: view.stack.length,
    };
  } catch (err) {
    if (!isFateError(err, FateErrorCode.CORRUPT_DATA)) throw err;
    return { ...row, shown: CORRUPT, corrupt: err.message };
  }
}
