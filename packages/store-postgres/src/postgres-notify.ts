/**
 * Sends the wake-up NOTIFY after a SUBMITTED insert committed, at most one at a time per
 * client, coalescing those asked for meanwhile into one more.
 *
 * Not inside the insert's statement: a transaction that NOTIFYs holds PostgreSQL's global
 * notify lock through its commit, WAL flush included, so notifying inserts serialize at
 * the disk's flush rate (about 300 seeds/s here, whatever the concurrency). A bare
 * `SELECT pg_notify(…)` writes no WAL and commits without a flush, so the lock is held
 * only briefly, and the inserts commit in parallel (group commit).
 */
export class WakeupNotifier {
  readonly #send: () => Promise<unknown>;
  #inFlight: Promise<void> | undefined;
  #again = false;

  constructor(send: () => Promise<unknown>) {
    this.#send = send;
  }

  /** A SUBMITTED record was inserted: wake the listeners (now, or right after the one in flight). */
  notify(): void {
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = this.#send()
      // A wake-up that cannot be sent costs latency, not work: every work finder also
      // polls. The insert it follows succeeded and must not be reported as failed.
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.#inFlight = undefined;
        if (this.#again) {
          this.#again = false;
          this.notify();
        }
      });
  }

  /** Resolves once every wake-up asked for was sent (before closing the connections). */
  async flush(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }
}
