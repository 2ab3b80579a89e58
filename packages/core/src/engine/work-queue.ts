import type { FateId } from '../ids.js';

/**
 * The bounded hand-off between the work finder and the workers. An id is held from
 * `offer` until `done`, so no id is handed to two workers, and `offer` waits while the
 * queue is full instead of buffering without bound.
 */
export class WorkQueue {
  readonly #capacity: number;
  readonly #items: FateId[] = [];
  readonly #held = new Set<FateId>();
  #takers: Array<(id: FateId | undefined) => void> = [];
  #spaceWaiters: Array<() => void> = [];
  #closed = false;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** True when the id is queued or being worked on here. */
  has(id: FateId): boolean {
    return this.#held.has(id);
  }

  /** Queues an id unless held already; waits for space. False when closed. */
  async offer(id: FateId): Promise<boolean> {
    while (!this.#closed && this.#items.length >= this.#capacity) {
      await new Promise<void>((r) => this.#spaceWaiters.push(r));
    }
    if (this.#closed || this.#held.has(id)) return false;
    this.#held.add(id);
    const taker = this.#takers.shift();
    if (taker) taker(id);
    else this.#items.push(id);
    return true;
  }

  /**
   * Puts an id at the head of the queue at once, past the capacity: for transactions
   * whose holder died, which have waited longest. False when closed or held already.
   */
  offerFirst(id: FateId): boolean {
    if (this.#closed || this.#held.has(id)) return false;
    this.#held.add(id);
    const taker = this.#takers.shift();
    if (taker) taker(id);
    else this.#items.unshift(id);
    return true;
  }

  /** The next id, or undefined once closed. */
  take(): Promise<FateId | undefined> {
    const id = this.#items.shift();
    if (id) {
      this.#spaceWaiters.shift()?.();
      return Promise.resolve(id);
    }
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((r) => this.#takers.push(r));
  }

  /** Releases an id taken earlier. */
  done(id: FateId): void {
    this.#held.delete(id);
  }

  /** Stops handing out ids; queued ids are dropped (they stay unreserved in the store). */
  close(): void {
    this.#closed = true;
    for (const id of this.#items.splice(0)) this.#held.delete(id);
    for (const t of this.#takers.splice(0)) t(undefined);
    for (const w of this.#spaceWaiters.splice(0)) w();
  }
}
