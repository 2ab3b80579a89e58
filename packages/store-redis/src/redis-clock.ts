/**
 * How fast this host's monotonic clock and the server's clock may drift apart, ms per ms:
 * 500 ppm, the most an NTP daemon slews a clock. An old sample's error grows by this.
 */
const DRIFT = 500e-6;

interface Sample {
  /** The server's clock, epoch ms, at `at`. */
  readonly serverMs: number;
  /** This host's monotonic clock (`performance.now()`) at the moment the sample stands for. */
  readonly at: number;
  /** Half the round trip it came from: the most the estimate can be off. */
  readonly errorMs: number;
}

/**
 * This client's estimate of the Redis server's clock, the one clock every deferral is
 * written and judged by (inside the scripts). It is calibrated from replies that carry
 * the server's time (TIME at open, then every heartbeat, scan and liveness read): the
 * server read its clock somewhere within the round trip, so taking the middle is off by
 * at most half of it. Between samples the estimate runs on the monotonic clock, so a
 * jump of this host's wall clock changes nothing.
 */
export class ServerClock {
  #sample: Sample | undefined;

  /** The server's clock now, epoch ms; this host's clock until the first sample. */
  now(): number {
    const s = this.#sample;
    return s ? s.serverMs + (performance.now() - s.at) : Date.now();
  }

  /** The most `now()` can be off, ms (Infinity before the first sample). */
  errorMs(): number {
    const s = this.#sample;
    return s ? s.errorMs + (performance.now() - s.at) * DRIFT : Number.POSITIVE_INFINITY;
  }

  /**
   * Takes in the server time `serverMs` from a reply to a request sent at monotonic
   * `sentAt` and answered at `receivedAt`. Kept when it is more exact than the current
   * sample has become by now (a slow reply does not spoil a good estimate).
   */
  observe(serverMs: number, sentAt: number, receivedAt: number): void {
    if (!Number.isFinite(serverMs) || receivedAt < sentAt) return;
    const errorMs = (receivedAt - sentAt) / 2;
    if (errorMs > this.errorMs()) return;
    this.#sample = { serverMs, at: sentAt + errorMs, errorMs };
  }

  /** Runs `call`, whose reply carries the server time (`timeOf`), and takes that time in. */
  async timed<T>(call: () => Promise<T>, timeOf: (reply: T) => number): Promise<T> {
    const sentAt = performance.now();
    const reply = await call();
    this.observe(timeOf(reply), sentAt, performance.now());
    return reply;
  }
}
