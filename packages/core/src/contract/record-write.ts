import type { Status } from '../status.js';
import type { FinishedEntry } from './backend-queries.js';

/** What a fenced write changes. Absent fields stay as they are. */
export interface RecordWrite {
  readonly status?: Status;
  readonly stack?: string;
  readonly info?: string;
  /**
   * Release the reservation, hidden from scans for `deferMs` from now by the store's own
   * clock (stored as `deferUntil`; 0 = not deferred). Without `release` the reservation and
   * the stored deferral stay as they are.
   */
  readonly release?: { readonly deferMs: number };
  /** Delete the record (and with it the reservation). Other fields are then ignored. */
  readonly delete?: boolean;
  /**
   * The age-off index entry (only backends with `ageOffDue` keep it): present when the write
   * leaves the record finished with a changed status or info, `null` when it moves it to an
   * unfinished status; absent: the entry stays as it is.
   */
  readonly finished?: FinishedEntry | null;
}
