import type { RunnablePosition } from '../contract/priority.js';
import type { IdRange, ScanResult } from '../contract/types.js';
import type { FateId } from '../ids.js';
import { inRange, type PartitionData, partitionRange } from '../partition.js';
import { type ClaimRoundHost, claimRound } from './batched-claim.js';
import { FinderWake } from './finder-wake.js';
import { type HandOutHost, handOut } from './hand-out.js';
import { samePartition } from './same-partition.js';
import { scanChannel, traced } from './tracing.js';
import type { WorkFinderOptions } from './work-finder-options.js';
import type { WorkQueue } from './work-queue.js';

export type { WorkFinderOptions } from './work-finder-options.js';

/**
 * Of every `SWEEP_EVERY` rounds of a claiming finder, one reads the next page of its sweep
 * instead of claiming from the top of the partition (the starvation rule, issue 25). Claims
 * carried by finishing writes (`claimScope`) pause while a page is read and handed out.
 */
export const SWEEP_EVERY = 4;

/**
 * The one loop per instance that looks for work (seed PR): walks its partition a page at
 * a time in the runnable order (higher priorities first, then id order; a sweep visits
 * every runnable id once and then starts again at the top), hands each id to its pool's
 * bounded queue, and at the end of a sweep
 * that found nothing backs off exponentially — never sleeping past the earliest stored
 * deferral, and cut short by `wake()`. A partition change does not send it back to the
 * start: it goes on from where it was when that is still in its range.
 */
export class WorkFinder {
  readonly #o: WorkFinderOptions;
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  readonly #wait = new FinderWake();
  #stale = false;
  /** The last place looked at in this sweep; the next page starts after it. */
  #cursor: RunnablePosition | undefined;
  /** Rounds of a claiming finder, for the starvation rule (`SWEEP_EVERY`). */
  #rounds = 0;
  /** A finishing write was given a claim since the last claim round (claimScope). */
  #carried = false;
  /** A page of the sweep is being read or handed out: finishing writes claim nothing now. */
  #sweeping = false;
  /** Pools whose ids this sweep left behind because they were full. */
  readonly #starved = new Set<WorkQueue>();
  /** The partition as last read. */
  #partition: PartitionData | undefined;

  /** What a claim round and handing out a page need from this finder. */
  readonly #claimHost: ClaimRoundHost;
  readonly #handOutHost: HandOutHost;

  constructor(options: WorkFinderOptions) {
    this.#o = options;
    this.#claimHost = {
      store: options.store,
      onEvent: options.onEvent,
      handing: () => this.#running && options.leaseValid(),
      until: async (change) => {
        await Promise.race([change, this.#wait.wakeUp()]);
        this.#wait.settled();
      },
    };
    this.#handOutHost = {
      route: options.route,
      queues: options.queues,
      foreign: options.foreign,
      starved: this.#starved,
      going: () => this.#running && !this.#stale,
      wakeUp: () => this.#wait.wakeUp(),
    };
  }

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  /**
   * The range a worker's finishing write may claim the next transaction from (finish and
   * claim next): the partition's range as last read, when this finder claims and this
   * instance's lease is valid; undefined otherwise. Undefined too while a page of the sweep
   * is read and handed out: finishing writes claim from the top of the partition, so they
   * pause until the page's ids all went to the queue (the starvation rule holds for them as
   * for the finder's own claims: the workers that finish meanwhile take the page's ids).
   */
  claimScope(): { readonly range: IdRange | undefined } | undefined {
    const partition = this.#partition;
    if (!this.#o.claim || !this.#running || !partition || partition.total < 1) return undefined;
    if (this.#sweeping) return undefined;
    if (this.#o.scanner.strategy !== 'range' || !this.#o.leaseValid()) return undefined;
    this.#carried = true;
    return { range: partitionRange(partition) };
  }

  /** Look again as soon as the current page is handed out (work was seeded). */
  wake(): void {
    this.#wait.wake();
  }

  /** The partition changed: stop handing out the current page and read it again now. */
  rescan(): void {
    this.#stale = true;
    this.wake();
  }

  /** Transactions that became runnable again (their holder died): they go first. */
  async recovered(ids: readonly FateId[]): Promise<void> {
    const { store, route } = this.#o;
    await Promise.all(
      ids.map(async (id) => {
        const view = await store.read(id).catch(() => undefined);
        route(view?.info.opName ?? '')?.offerFirst(id);
      }),
    );
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { backoffMinMs, backoffMaxMs } = this.#o;
    let backoff = backoffMinMs;
    let foundInSweep = 0;
    let nextDeferralAt: number | undefined;
    let lastPartition: PartitionData | undefined;
    while (this.#running) {
      // A sweep reads from the start, so wake-ups before it are covered by it; those
      // during it send the finder round once more when it ends.
      if (this.#cursor === undefined) this.#wait.woken = false;
      this.#stale = false;
      let more = false;
      // Let timers run between pages (heartbeats above all): with a store that answers
      // without I/O, a busy sweep would otherwise never leave the microtask queue.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        const partition = await this.#o.partition();
        this.#partition = partition;
        if (partition && partition.total > 0 && this.#o.leaseValid()) {
          if (!samePartition(partition, lastPartition)) this.#keepCursorIn(partition);
          lastPartition = partition;
          const page = await this.#page(partition);
          foundInSweep += page.found;
          if (page.nextDeferralAt !== undefined) {
            nextDeferralAt = Math.min(nextDeferralAt ?? page.nextDeferralAt, page.nextDeferralAt);
          }
          more = page.more;
        }
      } catch (error) {
        this.#o.onEvent('warning', { message: 'work finder scan failed', error });
      }
      if (more && this.#running) continue; // the sweep goes on
      if (foundInSweep > 0 || this.#wait.woken) {
        foundInSweep = 0;
        nextDeferralAt = undefined;
        backoff = backoffMinMs;
        continue;
      }
      const untilDeferral =
        nextDeferralAt === undefined ? backoff : Math.max(1, nextDeferralAt - this.#o.store.now());
      nextDeferralAt = undefined;
      await this.#wait.sleep(Math.min(backoff, untilDeferral), this.#running, this.#starved);
      backoff = this.#wait.woken
        ? backoffMinMs
        : Math.min(backoffMaxMs, Math.round(backoff * 1.5 + backoffMinMs));
    }
  }

  /** Reads one page after the cursor and hands its ids out; moves the cursor on. */
  async #page(partition: PartitionData): Promise<PageOutcome> {
    const { scanner, store, pageSize } = this.#o;
    let claimed = 0;
    // Claims take the top of the partition (highest priority first); every SWEEP_EVERY-th
    // round reads the next page of the sweep instead, so the sweep, which visits every
    // runnable id once, goes on under any load and nothing lower is starved. A round that
    // only waited for an idle worker claimed nothing and does not count (counted, it made
    // the sweep take most of a backlog, one reservation per id instead of one per batch),
    // unless finishing writes claimed meanwhile: then they are what kept the workers busy.
    const claim = scanner.strategy === 'range' ? this.#o.claim : undefined;
    const sweepTurn = (this.#rounds + 1) % SWEEP_EVERY === 0;
    if (claim && !sweepTurn) {
      const outcome = await claimRound(this.#claimHost, claim, partitionRange(partition));
      this.#restore();
      if (!outcome.wait || this.#carried) this.#rounds++;
      this.#carried = false;
      if (outcome.full) return { found: outcome.found, more: outcome.wait };
      // fewer than asked: the scan below finds what else there is, and the next deferral
      claimed = outcome.found;
    } else this.#rounds++;
    // A sweep page stays a full page: a smaller one (a claim's worth) left a low-priority
    // transaction behind several pages of a steady higher load, and the simulation's
    // priority scenarios found it starting after the last higher one.
    const options = {
      limit: pageSize,
      ...(this.#cursor !== undefined
        ? { after: this.#cursor.id, afterPriority: this.#cursor.priority }
        : {}),
    };
    const trace = {
      instanceId: store.instanceId,
      strategy: scanner.strategy,
      partition: partition.partition,
      total: partition.total,
    };
    // Finishing writes claim from the top too: no run armed from now on claims until this
    // page was handed out, or the work they bring would keep the queue full for ever and the
    // page's ids (the lower ones) out of it.
    this.#sweeping = true;
    let scan: ScanResult;
    let found = claimed;
    try {
      scan = await traced(scanChannel, trace, () => scanner.scan(store, partition, options));
      this.#restore();
      found += await handOut(this.#handOutHost, scan.ids, scan.ops);
    } finally {
      this.#sweeping = false;
    }
    // A rescan reads the same place again; otherwise a full page goes on after it.
    if (!this.#stale) {
      this.#cursor =
        scan.last === undefined ? undefined : { id: scan.last, priority: scan.lastPriority ?? 0 };
    }
    this.#o.onEvent('scan', {
      partition,
      strategy: scanner.strategy,
      itemsRead: scan.itemsRead,
      ms: scan.ms,
      found,
    });
    return { found, more: this.#cursor !== undefined, nextDeferralAt: scan.nextDeferralAt };
  }

  /**
   * Offers first the ids workers put back (not run for a cause of this instance's: a lapse,
   * a store fault). Called once the store answered this round's scan or claim, with the
   * lease valid: while the store is away they wait, and are not asked again in a loop.
   */
  #restore(): void {
    for (const queue of this.#o.queues) queue.restore();
  }

  /** After a partition change, go on from the cursor if the new range still holds it. */
  #keepCursorIn(partition: PartitionData): void {
    if (this.#cursor === undefined || this.#o.scanner.strategy === 'hash') return;
    const range = partitionRange(partition);
    if (!inRange(this.#cursor.id, range)) this.#cursor = undefined;
  }
}

interface PageOutcome {
  readonly found: number;
  readonly more: boolean;
  readonly nextDeferralAt?: number | undefined;
}
