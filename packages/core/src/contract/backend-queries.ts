import type { Status } from '../status.js';
import type { Reservation } from './types.js';

/**
 * The finish-time entry of the age-off index that a fenced write carries
 * (`RecordWrite.finished`): set whenever a write leaves the record SUCCESSFUL or FAILED with
 * a status or info change; `null` when a write moves it to an unfinished status.
 */
export interface FinishedEntry {
  /**
   * The age-off stamp (store clock, epoch ms, whole: the guard rounds it); absent: the
   * backend stamps its own `now()`.
   */
  readonly at?: number;
  /** Its own retention (`info.retainMs`), whole ms; absent: the sweep's retention applies. */
  readonly retainMs?: number;
}

/** `StoreBackend.ageOffDue`: finished records whose index entry is due. */
export interface BackendAgeOffQuery {
  /** Records without their own retention are due when finished at or before this. */
  readonly finishedBefore: number;
  /** Records with their own retention are due when `at + retainMs <= now`. */
  readonly now: number;
  readonly limit: number;
}

/** `StoreBackend.listPage`'s filter (a hint: the guard filters the rows again). */
export interface BackendListQuery {
  readonly statuses?: ReadonlySet<Status>;
  readonly op?: string;
  readonly reserved?: boolean;
  /** A lock id, or an instance id (matching `<instanceId>@…`). */
  readonly holder?: string;
  /** true: `deferUntil > now` by the store's clock; false: not deferred. */
  readonly deferred?: boolean;
  /** Ids strictly after this one. */
  readonly after?: string;
  readonly limit: number;
}

/** A row of `StoreBackend.listPage`: what is kept beside a record, never its stack or info. */
export interface BackendListRow {
  readonly id: string;
  readonly status: string;
  readonly op: string;
  readonly reservation: Reservation | null;
  readonly deferUntil: number;
  /** Its priority; absent: 0. */
  readonly priority?: number;
  readonly finishedAt?: number;
}

/** A page of `StoreBackend.listPage`. */
export interface BackendListPage {
  /** At most `limit` rows matching the filter, ascending by id. */
  readonly rows: BackendListRow[];
  /**
   * Set when the page ended before the end of the ids (full, or the backend stopped after
   * reading a bounded number of records): the last id examined; the next page starts after it.
   */
  readonly last?: string;
}

/** One group of `StoreBackend.counts`: how many records have this status and op. */
export interface BackendCount {
  readonly status: string;
  readonly op: string;
  readonly count: number;
}

/**
 * Optional backend operations for what is periodic or administrative, answered from the
 * store's own indexes. A backend that has none still works: the guard then answers from
 * `list` (reading the whole store). A backend that implements `ageOffDue` must keep the
 * index by every write's `finished` entry.
 */
export interface StoreBackendQueries {
  /**
   * Ids of finished (SUCCESSFUL, FAILED) records due for age-off by their indexed entry,
   * oldest first, at most `limit`. Costs an indexed read of what is due, not of the store.
   */
  ageOffDue?(query: BackendAgeOffQuery): Promise<Array<{ id: string; finishedAt: number }>>;
  /**
   * Deletes those of `ids` that are, at that moment, unreserved, finished and due by their
   * indexed entry under `query` (what `ageOffDue` answers), in one step per batch; returns
   * how many it deleted. A record deleted and seeded again, finished again later, or
   * reserved meanwhile is left as it is: the condition is checked where it is applied.
   */
  deleteAgedOff?(ids: readonly string[], query: BackendAgeOffQuery): Promise<number>;
  /** Record counts by status and op, computed in the store. */
  counts?(): Promise<BackendCount[]>;
  /** One page of records in id order after `after`, filtered; see `BackendListPage`. */
  listPage?(query: BackendListQuery): Promise<BackendListPage>;
}
