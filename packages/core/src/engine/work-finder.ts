import type { FateId } from '../ids.js';
import {
  inRange,
  type PartitionData,
  type PartitionScanner,
  partitionRange,
} from '../partition.js';
import type { FatesStore } from '../store/fates-store.js';
import type { FateEvents } from './events.js';
import type { WorkQueue } from './work-queue.js';

export interface WorkFinderOptions {
  readonly store: FatesStore;
  readonly scanner: PartitionScanner;
  readonly queue: WorkQueue;
  readonly partition: () => Promise<PartitionData | undefined>;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  /** Ids read per scan page. */
  readonly pageSize: number;
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
}

/**
 * The one loop per instance that looks for work (seed PR): walks its partition a page at
 * a time in id order, hands ids to the workers through the bounded queue, and at the end
 * of a sweep that found nothing backs off exponentially — never sleeping past the
 * earliest stored deferral, and cut short by `wake()`. A partition change does not send
 * it back to the start: it goes on from where it was when that is still in its range.
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
  recovered(ids: readonly FateId[]): void {
    for (const id of ids) this.#o.queue.offerFirst(id);
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
      try {
        const partition = await this.#o.partition();
        if (partition && partition.total > 0) {
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

  /** Reads one page after the cursor and hands its ids out; moves the cursor. */
  async #page(partition: PartitionData) {
    const { queue, scanner, store, pageSize } = this.#o;
    const scan = await scanner.scan(store, partition, {
      limit: pageSize,
      ...(this.#cursor !== undefined ? { after: this.#cursor } : {}),
    });
    let found = 0;
    let cut = false;
    for (const id of scan.ids) {
      if (!this.#running || this.#stale) {
        cut = true;
        break;
      }
      if (!queue.has(id) && (await queue.offer(id))) found++;
      this.#cursor = id;
    }
    if (!cut) this.#cursor = scan.last; // a full page goes on after it; else the sweep ends
    this.#o.onEvent('scan', {
      partition,
      strategy: scanner.strategy,
      itemsRead: scan.itemsRead,
      ms: scan.ms,
      found,
    });
    return {
      found,
      more: this.#cursor !== undefined,
      nextDeferralAt: scan.nextDeferralAt,
    };
  }

  /** After a partition change, go on from the cursor if the new range still holds it. */
  #keepCursorIn(partition: PartitionData): void {
    if (this.#cursor === undefined || this.#o.scanner.strategy === 'hash') return;
    const range = partitionRange(partition);
    if (!inRange(this.#cursor, range)) this.#cursor = undefined;
  }

  #sleep(ms: number): Promise<void> {
    if (!this.#running || this.#woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}

function samePartition(a: PartitionData | undefined, b: PartitionData | undefined): boolean {
  return a?.partition === b?.partition && a?.total === b?.total;
}
