import type { WorkQueue } from './work-queue.js';

/**
 * How the work finder waits (`WorkFinder`): its wake-up flag, the one pending wake-up, and
 * the sleep between sweeps that a wake-up, or room in a pool left behind, cuts short.
 */
export class FinderWake {
  #wake: (() => void) | undefined;
  /** Set by `wake()`; the finder clears it when a sweep starts from the top. */
  woken = false;

  /** Wakes the finder: resolves the pending `wakeUp()`, and marks it woken. */
  wake(): void {
    this.woken = true;
    this.#wake?.();
  }

  /** Resolves when the finder is woken, told to rescan, or stopped. */
  wakeUp(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** Forgets the pending wake-up (the wait it belonged to ended otherwise). */
  settled(): void {
    this.#wake = undefined;
  }

  /**
   * Sleeps `ms`, or until woken, or until a pool left behind (`starved`, cleared here) has
   * room again. Returns at once when `running` is false or the finder was woken.
   */
  async sleep(ms: number, running: boolean, starvedPools: Set<WorkQueue>): Promise<void> {
    if (!running || this.woken) return;
    const starved = [...starvedPools];
    starvedPools.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
      this.wakeUp(),
      ...starved.map((q) => q.changed()),
    ]);
    clearTimeout(timer);
    this.#wake = undefined;
  }
}
