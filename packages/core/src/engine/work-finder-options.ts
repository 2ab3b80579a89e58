import type { FatesStore } from '../contract/fates-store.js';
import type { PartitionData, PartitionScanner } from '../partition.js';
import type { FinderClaim } from './batched-claim.js';
import type { FateEvents } from './events.js';
import type { WorkQueue } from './work-queue.js';

/** What the work finder (`WorkFinder`) is given: its store, partition, pools and timing. */
export interface WorkFinderOptions {
  readonly store: FatesStore;
  readonly scanner: PartitionScanner;
  /** The queue of the pool that runs `op` here; undefined when this engine does not run it. */
  readonly route: (op: string) => WorkQueue | undefined;
  /** Every pool's queue. */
  readonly queues: readonly WorkQueue[];
  /** Called with ops found runnable that this engine does not run. */
  readonly foreign: (op: string) => void;
  readonly partition: () => Promise<PartitionData | undefined>;
  /** False while this instance's own lease ran out: it hands out nothing then. */
  readonly leaseValid: () => boolean;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  /** Ids read per scan page. */
  readonly pageSize: number;
  /**
   * Set when this engine claims its work (one pool that runs every op, range partitions):
   * the pool's queue and the signal its runs get now. The finder then claims as many
   * runnable transactions of its range as the pool has idle workers, in one store call
   * (`claimRunnable`), and hands them out reserved (`claimRound`).
   */
  readonly claim?: FinderClaim;
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
}
