import type { FateStore } from '../contract/fate-store.js';
import { Status } from '../status.js';

/** A transaction reserved to run before a worker took it (claimed by the work finder). */
export interface ClaimedWork {
  readonly fate: FateStore;
  /** The run's signal, taken before the claim was sent (a lapse meanwhile aborts the run). */
  readonly signal: AbortSignal;
}

/**
 * Lets go of a claimed transaction no worker will run (the pool closed, this instance's
 * lease ran out, the id was held here already): as it was found, so one this claim
 * started goes back to SUBMITTED (nothing of it ran). A failure leaves it to this
 * client's `releaseOrphans`.
 */
export async function letGo(fate: FateStore): Promise<void> {
  try {
    if (fate.startedNow) {
      await fate.commit([{ op: 'setStatus', status: Status.SUBMITTED }, { op: 'unreserve' }]);
    } else {
      await fate.unreserve();
    }
  } catch {
    fate.abandon();
  }
}
