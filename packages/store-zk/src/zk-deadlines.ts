/** A request waiting for its answer. */
interface Waiting {
  readonly deadline: number;
  done: boolean;
  readonly expire: () => void;
}

/**
 * The answer deadlines of the requests in flight, kept with one timer for all of them
 * rather than one each: every request gets the same timeout, so deadlines come in the
 * order requests are sent, and only the oldest unanswered one needs a timer. (A timer per
 * request cost a seed more client CPU than the rest of the ZooKeeper client together.)
 */
export class ZkDeadlines {
  readonly #timeoutMs: number;
  #queue: Waiting[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Starts the clock for one request: `expire` runs if it is not answered in time.
   * Returns what to call when the answer arrives.
   */
  start(expire: () => void): () => void {
    const waiting: Waiting = { deadline: performance.now() + this.#timeoutMs, done: false, expire };
    this.#queue.push(waiting);
    if (!this.#timer) this.#arm(this.#timeoutMs);
    return () => {
      waiting.done = true;
    };
  }

  #check(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#head < this.#queue.length) {
      const w = this.#queue[this.#head] as Waiting;
      if (!w.done && w.deadline > now) break;
      this.#head++;
      if (!w.done) w.expire();
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    const next = this.#queue[this.#head];
    if (next) this.#arm(Math.max(1, next.deadline - now));
  }

  /** The connection, not this timer, keeps the process alive while requests are out. */
  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#check(), ms);
    this.#timer.unref();
  }
}
