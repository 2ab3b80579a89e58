import type { FatesStore } from '../contract/fates-store.js';
import type { IdRange } from '../contract/types.js';
import { letGo } from './claimed-work.js';
import type { FateEvents } from './events.js';
import type { ResolvedFateOptions } from './options.js';
import type { WorkQueue } from './work-queue.js';
import type { Workers } from './workers.js';

/** A claiming finder's one pool: its queue, and the signal its runs get now. */
export interface FinderClaim {
  readonly queue: WorkQueue;
  readonly signal: () => AbortSignal;
}

/**
 * Claims (one store call reserving a batch for the idle workers) when the store claims
 * many natively and this engine has one pool for every op over range partitions: a
 * claim cannot filter by op or by hash.
 */
export function claimOption<Env>(
  o: ResolvedFateOptions<Env>,
  workers: Workers<Env> | undefined,
): { claim?: FinderClaim } {
  const { pools, store, scanner } = o;
  const [only] = pools.all;
  if (!store.batchedClaims || pools.all.length !== 1 || !only || only.ops || !workers) return {};
  if (scanner.strategy !== 'range') return {};
  return { claim: { queue: only.queue, signal: () => workers.runSignal } };
}

/** What a claim round needs from its finder. */
export interface ClaimRoundHost {
  readonly store: FatesStore;
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  /** False once the finder stopped or this instance's lease ran out: nothing is handed out. */
  handing(): boolean;
  /** Resolves at `change`, or when the finder is woken or stopped. */
  until(change: Promise<void>): Promise<void>;
}

/** What a claim round did. `full`: the claim took all it asked for (more may be there). */
export interface ClaimRound {
  readonly found: number;
  readonly full: boolean;
  /** No worker was idle: the round waited for one (or a wake-up) and claimed nothing. */
  readonly wait: boolean;
}

/**
 * One claim round of a finder: claims as many runnable transactions of `range` as the
 * pool has idle workers, in one store call, and hands them out reserved; with no idle
 * worker it waits for one (or a wake-up). Work claimed that cannot run here is let go.
 */
export async function claimRound(
  host: ClaimRoundHost,
  claim: FinderClaim,
  range: IdRange,
): Promise<ClaimRound> {
  const { queue } = claim;
  const idle = queue.idle - queue.queued;
  if (idle <= 0) {
    await host.until(queue.changed());
    return { found: 0, full: true, wait: true };
  }
  const signal = claim.signal(); // taken before the claim is sent, as for a reservation
  const { claimed, refused } = await host.store.claimRunnable(range, { limit: idle });
  for (const { id, error } of refused) {
    host.onEvent('warning', { message: 'reserving failed', id, error });
  }
  let found = 0;
  const unrun: Promise<void>[] = [];
  for (const fate of claimed) {
    if (host.handing() && queue.offerClaimed({ fate, signal })) found++;
    else unrun.push(letGo(fate));
  }
  await Promise.all(unrun); // before a shutdown goes on to leave membership
  return { found, full: claimed.length + refused.length >= idle, wait: false };
}
