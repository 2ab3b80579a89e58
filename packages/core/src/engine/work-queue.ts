import type { FateId } from '../ids.js';
import { type ClaimedWork, letGo } from './claimed-work.js';

/** What `tryOffer` did with an id. */
export type OfferResult = 'queued' | 'full' | 'held' | 'closed';

/**
 * The bounded hand-off between the work finder and one pool's workers. An id is held from
 * its offer until `done`, so no id is handed to two workers, and the queue never holds
 * more than its capacity: the finder waits (or feeds another pool) instead of buffering.
 */
export class WorkQueue {
  readonly #capacity: number;
  readonly #items: FateId[] = [];
  readonly #held = new Set<FateId>();
  /** Ids handed out already reserved (claimed), until a worker takes their handle. */
  readonly #claims = new Map<FateId, ClaimedWork>();
  /** Ids taken and given back unrun (`putBack`), until the finder restores them. */
  readonly #putBack = new Set<FateId>();
  /** Claimed work let go at close, until the store answered. */
  readonly #lettingGo: Promise<void>[] = [];
  #takers: Array<(id: FateId | undefined) => void> = [];
  #watchers: Array<() => void> = [];
  #closed = false;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** True when the id is queued or being worked on here. */
  has(id: FateId): boolean {
    return this.#held.has(id);
  }

  get full(): boolean {
    return this.#items.length >= this.#capacity;
  }

  /** Ids waiting for a worker. */
  get queued(): number {
    return this.#items.length;
  }

  /** Workers waiting for an id. */
  get idle(): number {
    return this.#takers.length;
  }

  /** Ids being worked on. */
  get running(): number {
    return this.#held.size - this.#items.length;
  }

  /** Queues an id unless it is held already or the queue is full; never waits. */
  tryOffer(id: FateId): OfferResult {
    if (this.#closed) return 'closed';
    if (this.#held.has(id)) return 'held';
    if (this.full) return 'full';
    this.#hand(id, false);
    return 'queued';
  }

  /**
   * Hands out a transaction the finder claimed (reserved for this pool's idle workers),
   * past the capacity; false when closed or the id is held here already (the caller then
   * lets it go).
   */
  offerClaimed(work: ClaimedWork): boolean {
    const id = work.fate.id;
    if (this.#closed || this.#held.has(id)) return false;
    this.#claims.set(id, work);
    this.#hand(id, false);
    return true;
  }

  /** The claimed work of an id just taken, if it was handed out claimed. */
  claimed(id: FateId): ClaimedWork | undefined {
    const work = this.#claims.get(id);
    this.#claims.delete(id);
    return work;
  }

  /**
   * Puts an id at the head of the queue at once, past the capacity: for transactions
   * whose holder died, which have waited longest. False when closed or held already.
   */
  offerFirst(id: FateId): boolean {
    if (this.#closed || this.#held.has(id)) return false;
    this.#hand(id, true);
    return true;
  }

  /**
   * Keeps an id a worker took and could not run for a cause of this instance's (reserving
   * it met a store fault, or this instance's lease was not valid), to be offered again first
   * by `restore()` — not left to the next sweep, which under a steady higher-priority load
   * comes only after every page above it. The worker still calls `done(id)`.
   */
  putBack(id: FateId): void {
    if (!this.#closed) this.#putBack.add(id);
  }

  /**
   * Offers the ids put back since the last call at the head of the queue, in the order they
   * were put back, past the capacity (they were handed out once already); answers how many.
   * The finder calls it once the store answered its scan or claim, with this instance's
   * lease valid, so a store that is away is not asked again in a loop.
   */
  restore(): number {
    if (this.#putBack.size === 0) return 0; // closed: none (close cleared them)
    // one still held (its worker not yet done with it) stays for the next call
    const ids = [...this.#putBack].filter((id) => !this.#held.has(id));
    for (const id of ids) this.#putBack.delete(id);
    const queued: FateId[] = [];
    for (const id of ids) {
      this.#held.add(id);
      const taker = this.#takers.shift();
      if (taker) taker(id);
      else queued.push(id);
    }
    this.#items.unshift(...queued);
    return ids.length;
  }

  /** The next id, or undefined once closed. */
  take(): Promise<FateId | undefined> {
    const id = this.#items.shift();
    if (id) {
      this.#changed();
      return Promise.resolve(id);
    }
    if (this.#closed) return Promise.resolve(undefined);
    const taken = new Promise<FateId | undefined>((r) => this.#takers.push(r));
    this.#changed(); // one more idle worker
    return taken;
  }

  /** Releases an id taken earlier. */
  done(id: FateId): void {
    this.#held.delete(id);
  }

  /** Resolves at the next change of room or idleness (a take, a close). */
  changed(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((r) => this.#watchers.push(r));
  }

  /**
   * Stops handing out ids; queued ids are dropped (they stay unreserved in the store, and
   * claimed ones are let go).
   */
  close(): void {
    this.#closed = true;
    this.#putBack.clear();
    for (const id of this.#items.splice(0)) {
      this.#held.delete(id);
      const work = this.claimed(id);
      if (work) this.#lettingGo.push(letGo(work.fate));
    }
    for (const t of this.#takers.splice(0)) t(undefined);
    this.#changed();
  }

  /** Resolves once claimed work dropped at close was let go. */
  async released(): Promise<void> {
    await Promise.all(this.#lettingGo);
  }

  #hand(id: FateId, first: boolean): void {
    this.#held.add(id);
    const taker = this.#takers.shift();
    if (taker) taker(id);
    else if (first) this.#items.unshift(id);
    else this.#items.push(id);
  }

  #changed(): void {
    for (const w of this.#watchers.splice(0)) w();
  }
}
