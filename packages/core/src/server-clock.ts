/**
 * How fast a server's clock and this process's monotonic clock may drift apart, ms per ms:
 * 500 ppm, the most an NTP daemon slews a clock. A kept reading's error grows by this.
 */
const DRIFT = 500e-6;

/** A reading of the server's clock and when it stands for here. */
interface Reading {
  /** The server's clock, epoch ms. */
  readonly serverMs: number;
  /** This process's monotonic clock (`performance.now()`) halfway through the round trip. */
  readonly at: number;
  /** Half the round trip: the most the reading can be off at `at`. */
  readonly errorMs: number;
}

/**
 * A client's estimate of a store server's clock, for backends whose replies carry the
 * server's time (Redis `TIME`, PostgreSQL `clock_timestamp()`): the server read its clock
 * somewhere within the round trip, so the middle of it is off by at most half. Between
 * readings the estimate runs on this process's monotonic clock, so neither a faked `Date`
 * nor a step of the local wall clock moves it. A new reading replaces the kept one when its
 * error is no larger than the kept one's, grown by drift since (a slow reply does not spoil
 * a good estimate); the estimate stays within a round trip of the server's clock.
 *
 * Backends still write and judge deferrals and liveness by the server's clock inside their
 * statements and scripts; this is `StoreBackend.now()` and what a client passes as "now".
 */
export class ServerClock {
  #kept: Reading | undefined;

  /**
   * Takes in the server time `serverMs` (epoch ms, or its decimal text as a driver returns
   * a BIGINT) from the reply to a request sent at monotonic `sentAt`, answered at
   * `receivedAt`. Ignored when it is not a finite time or the interval is backwards.
   */
  observe(serverMs: number | string, sentAt: number, receivedAt = performance.now()): void {
    const server = Number(serverMs);
    if (!Number.isFinite(server) || receivedAt < sentAt) return;
    const errorMs = (receivedAt - sentAt) / 2;
    const at = sentAt + errorMs;
    const kept = this.#kept;
    if (kept && errorMs > kept.errorMs + (at - kept.at) * DRIFT) return;
    this.#kept = { serverMs: server, at, errorMs };
  }

  /** Runs `call`, whose reply carries the server time (`timeOf`), and takes that time in. */
  async timed<T>(call: () => Promise<T>, timeOf: (reply: T) => number): Promise<T> {
    const sentAt = performance.now();
    const reply = await call();
    this.observe(timeOf(reply), sentAt, performance.now());
    return reply;
  }

  /** Whether a reading was taken. */
  get calibrated(): boolean {
    return this.#kept !== undefined;
  }

  /** Age of the kept reading, ms (infinite before the first). */
  get ageMs(): number {
    return this.#kept ? performance.now() - this.#kept.at : Number.POSITIVE_INFINITY;
  }

  /** The most `now()` can be off, ms (infinite before the first reading). */
  errorMs(): number {
    const kept = this.#kept;
    return kept ? kept.errorMs + (performance.now() - kept.at) * DRIFT : Number.POSITIVE_INFINITY;
  }

  /**
   * The server's clock now, epoch ms (fractional), as estimated. Throws before the first
   * reading: falling back to this host's clock would judge by a clock the store does not use.
   */
  now(): number {
    const kept = this.#kept;
    if (!kept) throw new Error('the server clock has not been read yet');
    return kept.serverMs + (performance.now() - kept.at);
  }
}
