import type { FateId } from '../ids.js';
import {
  inRange,
  type PartitionData,
  type PartitionScanner,
  partitionRange,
} from '../partition.js';
import type { FatesStore } from '../store/fates-store.js';
import { letGo } from './claimed-work.js';
import type { FateEvents } from './events.js';
import { scanChannel, traced } from './tracing.js';
import type { WorkQueue } from './work-queue.js';

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
   * (`claimRunnable`), and hands them out reserved.
   */
  readonly claim?: { readonly queue: WorkQueue; readonly signal: () => AbortSignal };
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
}

/**
 * The one loop per instance that looks for work (seed PR): walks its partition a page at
 * a time in id order, hands each id to its pool's bounded queue, and at the end of a sweep
 * that found nothing backs off exponentially — never sleeping past the earliest stored
 * deferral, and cut short by `wake()`. A partition change does not send it back to the
 * start: it goes on from where it was when that is still in its range.
 */
export class WorkFinder {
  readonly #o: WorkFinderOptions;
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;
  #woken = false;
  #stale = false;
  /** The last id looked at in this sweep; the next page starts after it. */
  #cursor: string | undefined;
  /** Pools whose ids this sweep left behind because they were full. */
  readonly #starved = new Set<WorkQueue>();

  constructor(options: WorkFinderOptions) {
    this.#o = options;
  }

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Look again as soon as the current page is handed out (work was seeded). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
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
      if (this.#cursor === undefined) this.#woken = false;
      this.#stale = false;
      let more = false;
      // Let timers run between pages (heartbeats above all): with a store that answers
      // without I/O, a busy sweep would otherwise never leave the microtask queue.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        const partition = await this.#o.partition();
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
      if (foundInSweep > 0 || this.#woken) {
        foundInSweep = 0;
        nextDeferralAt = undefined;
        backoff = backoffMinMs;
        continue;
      }
      const untilDeferral =
        nextDeferralAt === undefined ? backoff : Math.max(1, nextDeferralAt - this.#o.store.now());
      nextDeferralAt = undefined;
      await this.#sleep(Math.min(backoff, untilDeferral));
      backoff = this.#woken
        ? backoffMinMs
        : Math.min(backoffMaxMs, Math.round(backoff * 1.5 + backoffMinMs));
    }
  }

  /** Reads one page after the cursor and hands its ids out; moves the cursor on. */
  async #page(partition: PartitionData): Promise<PageOutcome> {
    const { scanner, store, pageSize } = this.#o;
    let claimed = 0;
    if (this.#o.claim && scanner.strategy === 'range') {
      const outcome = await this.#claim(this.#o.claim, partition);
      if (outcome.full) return { found: outcome.found, more: outcome.wait };
      // fewer than asked: the scan below finds what else there is, and the next deferral
      claimed = outcome.found;
    }
    const options = {
      limit: pageSize,
      ...(this.#cursor !== undefined ? { after: this.#cursor } : {}),
    };
    const trace = {
      instanceId: store.instanceId,
      strategy: scanner.strategy,
      partition: partition.partition,
      total: partition.total,
    };
    const scan = await traced(scanChannel, trace, () => scanner.scan(store, partition, options));
    const found = claimed + (await this.#handOut(scan.ids, scan.ops));
    // A rescan reads the same place again; otherwise a full page goes on after it.
    if (!this.#stale) this.#cursor = scan.last;
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
   * Claims as many runnable transactions of the partition's range as the pool has idle
   * workers and hands them out reserved; with no idle worker it waits for one (or a
   * wake-up). `full`: the claim took all it asked for (more may be there).
   */
  async #claim(
    claim: NonNullable<WorkFinderOptions['claim']>,
    partition: PartitionData,
  ): Promise<{ found: number; full: boolean; wait: boolean }> {
    const { queue } = claim;
    const idle = queue.idle - queue.queued;
    if (idle <= 0) {
      await Promise.race([queue.changed(), this.#wakeUp()]);
      this.#wake = undefined;
      return { found: 0, full: true, wait: true };
    }
    const signal = claim.signal(); // taken before the claim is sent, as for a reservation
    const { claimed, refused } = await this.#o.store.claimRunnable(partitionRange(partition), {
      limit: idle,
    });
    for (const { id, error } of refused) {
      this.#o.onEvent('warning', { message: 'reserving failed', id, error });
    }
    let found = 0;
    const unrun: Promise<void>[] = [];
    for (const fate of claimed) {
      if (this.#running && this.#o.leaseValid() && queue.offerClaimed({ fate, signal })) found++;
      else unrun.push(letGo(fate));
    }
    await Promise.all(unrun); // before a shutdown goes on to leave membership
    return { found, full: claimed.length + refused.length >= idle, wait: false };
  }

  /**
   * Hands each id to its pool's queue, in id order per pool. A full pool does not stop the
   * others: its ids wait while the rest are handed out, and the finder waits for room in
   * it only while no other pool has an idle worker; then it moves on and leaves them to
   * the next sweep. With a single pool this is plain back-pressure.
   */
  async #handOut(ids: readonly FateId[], ops: readonly string[]): Promise<number> {
    let pending: Array<{ id: FateId; queue: WorkQueue }> = [];
    ids.forEach((id, i) => {
      const op = ops[i] ?? '';
      const queue = this.#o.route(op);
      if (queue) pending.push({ id, queue });
      else this.#o.foreign(op);
    });
    let found = 0;
    while (pending.length > 0 && this.#running && !this.#stale) {
      const waiting: typeof pending = [];
      for (const item of pending) {
        const result = item.queue.tryOffer(item.id);
        if (result === 'queued') found++;
        else if (result === 'full') waiting.push(item);
      }
      pending = waiting;
      const full = new Set(pending.map((p) => p.queue));
      if (full.size === 0) break;
      if (this.#o.queues.some((q) => !full.has(q) && q.idle > 0)) {
        for (const q of full) this.#starved.add(q);
        break; // other pools are hungry: go on to the next page
      }
      await Promise.race([...[...full].map((q) => q.changed()), this.#wakeUp()]);
    }
    return found;
  }

  /** After a partition change, go on from the cursor if the new range still holds it. */
  #keepCursorIn(partition: PartitionData): void {
    if (this.#cursor === undefined || this.#o.scanner.strategy === 'hash') return;
    const range = partitionRange(partition);
    if (!inRange(this.#cursor, range)) this.#cursor = undefined;
  }

  /** Resolves when the finder is woken, told to rescan, or stopped. */
  #wakeUp(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Sleeps `ms`, or until woken, or until a pool left behind has room again. */
  async #sleep(ms: number): Promise<void> {
    if (!this.#running || this.#woken) return;
    const starved = [...this.#starved];
    this.#starved.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
      this.#wakeUp(),
      ...starved.map((q) => q.changed()),
    ]);
    clearTimeout(timer);
    this.#wake = undefined;
  }
}

interface PageOutcome {
  readonly found: number;
  readonly more: boolean;
  readonly nextDeferralAt?: number | undefined;
}

function samePartition(a: PartitionData | undefined, b: PartitionData | undefined): boolean {
  return a?.partition === b?.partition && a?.total === b?.total;
}
