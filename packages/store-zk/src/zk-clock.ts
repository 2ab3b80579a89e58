/**
 * This process's clock as epoch ms, moved only by its monotonic clock: a wall clock that
 * jumps, or is faked, after start changes nothing measured with it.
 */
export function localNow(): number {
  return performance.timeOrigin + performance.now();
}

/** How long the best sample is kept before any newer one may replace it, ms. */
const KEEP_MS = 10_000;

/**
 * This client's estimate of the ZooKeeper servers' clock: the leader's wall clock, which
 * stamps every write with its `mtime`. A write's reply carries that mtime, read by the
 * server while it applied the write, so between our send and the reply:
 *
 *   mtime − local(reply)  ≤  server − local  ≤  mtime + 1 − local(send)
 *
 * Every reply to a `set` is a sample (heartbeats write every period, `open` writes once).
 * The estimate keeps the highest lower bound seen in the last 10 s: it is never ahead of
 * the server (beyond drift within those 10 s) and at most one round trip behind. A sample
 * whose upper bound is below the estimate means the server clock stepped back (or a new
 * leader's clock runs behind): the estimate starts over from it.
 */
export class ZkClock {
  #offset: number | undefined;
  #keptAt = 0;

  /** Takes in the mtime of a write sent at local time `sentAt` and answered just now. */
  sample(sentAt: number, mtime: number): void {
    const repliedAt = localNow();
    const lower = mtime - repliedAt;
    const upper = mtime + 1 - sentAt;
    const offset = this.#offset;
    if (
      offset === undefined ||
      lower > offset ||
      upper < offset ||
      repliedAt - this.#keptAt > KEEP_MS
    ) {
      this.#offset = lower;
      this.#keptAt = repliedAt;
    }
  }

  /** True once a write's reply has been seen. */
  get calibrated(): boolean {
    return this.#offset !== undefined;
  }

  /** The servers' clock, epoch ms, as estimated here (rounded down, like an mtime). */
  now(): number {
    return Math.floor(localNow() + (this.#offset ?? Date.now() - localNow()));
  }
}
