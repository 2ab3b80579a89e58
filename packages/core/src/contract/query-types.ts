import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { Reservation } from './types.js';

/**
 * What `FatesStore.listPage` returns rows for. Every field narrows the rows; all are
 * optional. Rows come in id order; a page is read with a keyset cursor (`after`), so a
 * page costs the same however many transactions the store retains.
 */
export interface ListQuery {
  /** Only these statuses. */
  readonly statuses?: Iterable<Status>;
  /** Only transactions of this op name. */
  readonly opName?: string;
  /** `true`: only reserved transactions; `false`: only unreserved ones. */
  readonly reserved?: boolean;
  /**
   * Only those reserved by this holder: a lock id (`engine-1@9f2c…`), or an instance id
   * (`engine-1`: any of its incarnations).
   */
  readonly holder?: string;
  /** `true`: only deferred ones (`deferUntil` after the store's clock); `false`: the others. */
  readonly deferred?: boolean;
  /** Continue after this id: the `next` of the previous page. */
  readonly after?: string;
  /** Most rows in the page; default 100, at most 10,000. */
  readonly limit?: number;
}

/**
 * One row of `listPage`: what the store keeps beside the record, read without decoding its
 * stack (a step's state can be large). `read(id)` gives the whole transaction.
 */
export interface TxRow {
  readonly id: FateId;
  /** UNKNOWN when the stored status does not decode (then `corrupt` says why). */
  readonly status: Status;
  /** The op name given at seed; absent for none. */
  readonly opName?: string;
  readonly reservation?: Reservation;
  /** Store-clock epoch ms before which work finders skip it; 0 when not deferred. */
  readonly deferUntil: number;
  /** Its priority (0 on a backend without `capabilities.priorities`). */
  readonly priority: number;
  /**
   * When it finished (store clock, epoch ms: its age-off stamp), for SUCCESSFUL and FAILED
   * rows of backends that index it.
   */
  readonly finishedAt?: number;
  readonly corrupt?: string;
}

/** One page of `listPage`. */
export interface ListPage {
  readonly rows: TxRow[];
  /**
   * Set when more rows may follow: pass it as `after` to read the next page. Absent when
   * the listing reached the end of the id space.
   */
  readonly next?: string;
}

/** Counts of the retained transactions, computed by the store (`FatesStore.counts`). */
export interface StoreCounts {
  readonly total: number;
  /** By stored status; statuses with no transaction are 0. */
  readonly byStatus: Readonly<Record<Exclude<Status, 'UNKNOWN'>, number>>;
  /** By op name ('' for none). */
  readonly byOp: Readonly<Record<string, number>>;
  /** By op name and status: one entry per pair that has at least one transaction. */
  readonly byOpStatus: ReadonlyArray<{
    readonly opName: string;
    readonly status: string;
    readonly count: number;
  }>;
}

/** What `ageOffDue` looks for. */
export interface AgeOffQuery {
  /** Retention of transactions seeded without `retainMs`, ms. Default 7 days. */
  readonly retentionMs?: number;
  /** Most candidates returned. Default 1,000. */
  readonly limit?: number;
}

/** A finished transaction that is due for age-off by the store's index. */
export interface AgeOffCandidate {
  readonly id: FateId;
  /** Its indexed finish time (store clock, epoch ms). */
  readonly finishedAt: number;
}

/**
 * Which administrative and periodic reads the backend answers from its own indexes (true)
 * and which the guard answers by reading the whole store (false: fine for a small store,
 * proportional to the store's size otherwise).
 */
export interface StoreQueryCosts {
  readonly ageOff: 'indexed' | 'full-read';
  readonly counts: 'indexed' | 'full-read';
  readonly listPage: 'indexed' | 'full-read';
}
