import type { FateStore } from '../contract/fate-store.js';
import type { FatesStore } from '../contract/fates-store.js';

/**
 * Lets go of a record a caller reserved only to look at it and left unchanged (an admin
 * action its status refused, an age-off candidate that is not due), deferred as long as it
 * still was: a plain release would make a step that asked to wait, or a seed deferred to
 * later, runnable at once. The remaining wait is judged by the store's clock as this client
 * estimates it, so it is kept within a round trip.
 */
export async function releaseAsFound(store: FatesStore, fate: FateStore): Promise<void> {
  const left = fate.deferUntil - store.now();
  await fate.unreserve(left > 0 ? Math.ceil(left) : 0);
}
