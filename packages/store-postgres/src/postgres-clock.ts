/**
 * How fast the server's wall clock may drift from this process's monotonic clock: NTP
 * slews by at most 500 ppm. An estimate's error grows by this much per ms of age.
 */
const DRIFT = 0.0005;

/** A reading of the server's clock and when it was taken here. */
interface Sample {
  /** The server's epoch ms. */
  readonly server: number;
  /** This process's monotonic ms halfway through the round trip that carried it. */
  readonly local: number;
  /** Half the round trip: how far the reading can be from `local`. */
  readonly error: number;
}

/**
 * This client's estimate of the PostgreSQL server's clock, for `now()`: calibrated from
 * replies that carry the server's time (at open, and every heartbeat), advanced by this
 * process's monotonic clock, so neither a faked `Date` nor a step of the local wall clock
 * moves it. A new reading replaces the kept one when its error bound (half its round
 * trip) is smaller than the kept one's grown by drift since; the error of `now()` stays
 * within a round trip. Nothing the store judges uses it: deferrals and liveness are
 * written and judged by the server's clock inside the statements.
 */
export class ServerClock {
  #sample: Sample | undefined;

  /** Takes a reading `server` carried by a reply to a request sent at monotonic `sentAt`. */
  reading(server: number, sentAt: number, receivedAt = performance.now()): void {
    const error = (receivedAt - sentAt) / 2;
    const local = sentAt + error;
    const kept = this.#sample;
    if (!kept || error <= kept.error + (local - kept.local) * DRIFT) {
      this.#sample = { server: Number(server), local, error };
    }
  }

  get calibrated(): boolean {
    return this.#sample !== undefined;
  }

  /** Age of the kept reading, ms (infinite before the first). */
  get ageMs(): number {
    return this.#sample ? performance.now() - this.#sample.local : Number.POSITIVE_INFINITY;
  }

  /** The server's epoch ms now, as estimated; throws before the first reading. */
  now(): number {
    const sample = this.#sample;
    if (!sample) throw new Error('the server clock has not been read yet');
    return Math.round(sample.server + (performance.now() - sample.local));
  }
}
