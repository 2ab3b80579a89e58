import type { FateId } from '../ids.js';
import type { PartitionData } from '../partition.js';
import type { Status } from '../status.js';

/** What the engine reports through `onEvent`. */
export interface FateEvents {
  /** One work-finder scan: what the backend read and how long it took. */
  scan: {
    readonly partition: PartitionData;
    readonly strategy: 'hash' | 'range';
    readonly itemsRead: number;
    readonly ms: number;
    readonly found: number;
  };
  /** A step's `call` started (for tracing and tests). */
  step: { readonly id: FateId; readonly type: string };
  /** A step's `call` failed and is tried again after `deferMs` (its `attempt` failed). */
  retry: {
    readonly id: FateId;
    readonly type: string;
    readonly attempt: number;
    readonly deferMs: number;
    readonly error: unknown;
  };
  /** A transaction this instance ran ended. */
  finished: { readonly id: FateId; readonly status: Status };
  /** This instance's partition changed. */
  partition: { readonly partition: PartitionData | undefined; readonly live: number };
  /** Transactions became runnable again here: their holder died, or a reply was lost. */
  recovered: { readonly count: number; readonly ids: readonly FateId[] };
  /** An age-off sweep deleted old finished transactions (and stamped unstamped ones). */
  agedOff: { readonly deleted: number; readonly stamped: number };
  /** A pool has had every worker busy and a full queue for `forMs`. */
  saturated: { readonly pool: string; readonly forMs: number };
  /** Something went wrong that the engine survived (store unavailable, lost reservation). */
  warning: { readonly message: string; readonly id?: FateId; readonly error: unknown };
}
