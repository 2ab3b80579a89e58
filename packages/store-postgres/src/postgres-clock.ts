import { ServerClock } from '@fate/core';
import type pg from 'pg';
import type { PostgresStatements } from './postgres-statements.js';

/** The client's estimate of the server's clock (`StoreBackend.now()`), kept fresh. */
export class PostgresClock {
  readonly #clock = new ServerClock();
  #calibrating = false;

  /** Takes in the server time a reply carried, for a request sent at monotonic `sentAt`. */
  observe(serverMs: number | string, sentAt: number): void {
    this.#clock.observe(serverMs, sentAt);
  }

  /** Reads the server's clock once, timing the round trip. */
  async calibrate(pool: pg.Pool, statements: PostgresStatements): Promise<void> {
    const sentAt = performance.now();
    const [row] = await statements.now.rows(pool, {});
    if (row) this.#clock.observe(row.now, sentAt);
  }

  /** The estimate, epoch ms. */
  now(connection: { readonly control: pg.Pool; readonly statements: PostgresStatements }): number {
    // A client that does not heartbeat reads the server clock again now and then, in the
    // background: the estimate drifts with this machine's monotonic clock meanwhile.
    if (this.#clock.ageMs > 30_000 && !this.#calibrating) {
      this.#calibrating = true;
      this.calibrate(connection.control, connection.statements)
        .catch(() => undefined)
        .finally(() => {
          this.#calibrating = false;
        });
    }
    return Math.round(this.#clock.now());
  }
}
