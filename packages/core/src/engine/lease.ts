/**
 * This instance's own liveness lease, as it knows it: valid until a little before others
 * may judge it dead. Others clear its reservations only after watching it not renew for
 * a full timeout, counted from when they SAW its last heartbeat; this side counts from
 * when it SENT that heartbeat, which came first. So when heartbeats stop getting through
 * (the store is away, this process was paused), this side stops starting steps and aborts
 * the running ones before anyone else can take them over (self-fencing).
 */
export class Lease {
  readonly #lengthMs: number;
  readonly #onLapse: () => void;
  #validUntil = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  /** The current lapse was reported (onLapse ran); false again once the lease goes on. */
  #reported = false;

  /** `lengthMs` = liveness timeout minus a safety margin; `onLapse` runs when it runs out. */
  constructor(lengthMs: number, onLapse: () => void) {
    this.#lengthMs = lengthMs;
    this.#onLapse = onLapse;
  }

  /** A heartbeat sent at monotonic `sentAt` was acknowledged. */
  renewed(sentAt: number): void {
    // A lapse the timer has not reported yet (its callback was late: a busy or frozen event
    // loop) is reported now, before the lease goes on: work begun before the lapse must not
    // carry on as if it never happened, since others may have judged this instance dead.
    if (this.#validUntil !== Number.NEGATIVE_INFINITY && !this.valid) this.#lapse();
    const until = sentAt + this.#lengthMs;
    if (until <= this.#validUntil) return;
    this.#validUntil = until;
    if (this.valid) this.#reported = false; // a new stretch of validity: its lapse is news
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#check(), Math.max(0, until - performance.now()) + 1);
    this.#timer.unref();
  }

  get valid(): boolean {
    return performance.now() < this.#validUntil;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #check(): void {
    // A pause may have delayed this timer: judge by the clock, not by the timer firing.
    if (!this.valid) {
      this.#lapse();
      return;
    }
    // Fired early (the event loop's clock is coarser than performance.now()): watch on,
    // or a lapse with no renewal after it (the store away) would never be reported.
    clearTimeout(this.#timer);
    const left = this.#validUntil - performance.now();
    this.#timer = setTimeout(() => this.#check(), Math.max(0, left) + 1);
    this.#timer.unref();
  }

  /** Reports a lapse once, by whichever notices it first: the timer or a renewal. */
  #lapse(): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#onLapse();
  }
}
