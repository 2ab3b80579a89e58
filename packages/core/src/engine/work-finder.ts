import type { PartitionData, PartitionScanner } from '../partition.js';
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
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
}

/**
 * The one thread per instance that looks for work (seed PR): scans its partition, hands
 * ids to the workers through the bounded queue, and backs off exponentially when it finds
 * nothing — never sleeping past the earliest stored deferral, and cut short by `wake()`.
 */
export class WorkFinder {
  readonly #o: WorkFinderOptions;
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;
  #woken = false;
  #stale = false;

  constructor(options: WorkFinderOptions) {
    this.#o = options;
  }

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Look again as soon as the current scan is handed out (work was seeded). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /**
   * The last scan is out of date (the partition changed, dead reservations were cleared):
   * stop handing out its ids and scan again now.
   */
  rescan(): void {
    this.#stale = true;
    this.#woken = true;
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { backoffMinMs, backoffMaxMs, queue } = this.#o;
    let backoff = backoffMinMs;
    while (this.#running) {
      this.#woken = false;
      this.#stale = false;
      let found = 0;
      let nextDeferralAt: number | undefined;
      try {
        const partition = await this.#o.partition();
        if (partition && partition.total > 0) {
          const scan = await this.#o.scanner.scan(this.#o.store, partition);
          nextDeferralAt = scan.nextDeferralAt;
          for (const id of scan.ids) {
            if (!this.#running || this.#stale) break;
            if (!queue.has(id) && (await queue.offer(id))) found++;
          }
          this.#o.onEvent('scan', {
            partition,
            strategy: this.#o.scanner.strategy,
            itemsRead: scan.itemsRead,
            ms: scan.ms,
            found,
          });
        }
      } catch (error) {
        this.#o.onEvent('warning', { message: 'work finder scan failed', error });
      }
      if (found > 0 || this.#woken) {
        backoff = backoffMinMs;
        continue;
      }
      const untilDeferral =
        nextDeferralAt === undefined ? backoff : Math.max(1, nextDeferralAt - Date.now());
      await this.#sleep(Math.min(backoff, untilDeferral));
      backoff = this.#woken
        ? backoffMinMs
        : Math.min(backoffMaxMs, Math.round(backoff * 1.5 + backoffMinMs));
    }
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
