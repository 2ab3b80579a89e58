import type pg from 'pg';

/** Reconnect pauses of the listening connection grow up to this, ms. */
const MAX_PAUSE_MS = 5_000;

/**
 * Wake-ups across processes and hosts with LISTEN/NOTIFY: one dedicated connection (a
 * pooled one would be handed to other queries) listens on the schema's channel while
 * anyone is subscribed. When it is lost (server restart, `pg_terminate_backend`, network)
 * it reconnects with growing pauses and then wakes every listener once, since
 * notifications sent meanwhile were missed; work finders poll as well, so a missed
 * wake-up only delays work by their backoff.
 */
export class PostgresWakeups {
  readonly #connect: () => pg.Client;
  readonly #channel: string;
  readonly #listeners = new Set<() => void>();
  #client: pg.Client | undefined;
  #starting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #pause = 100;
  #closed = false;

  /** `connect` makes an unconnected client; `channel` is an identifier needing no quotes. */
  constructor(connect: () => pg.Client, channel: string) {
    this.#connect = connect;
    this.#channel = channel;
  }

  /**
   * Adds `listener`; the first one opens the listening connection and fails if it cannot.
   * Resolves to the unsubscribe, which closes the connection after the last listener.
   */
  async subscribe(listener: () => void): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    try {
      if (!this.#client) {
        this.#starting ??= this.#listen();
        await this.#starting;
      }
    } catch (err) {
      this.#listeners.delete(listener);
      throw err;
    }
    return async () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) await this.#stop();
    };
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    await this.#stop();
  }

  /** Connects and LISTENs; on loss, reconnects while anyone listens. */
  async #listen(): Promise<void> {
    const client = this.#connect();
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      this.#reconnect();
    };
    // An error on an idle connection is reported here; without a handler it would crash.
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (message.channel === this.#channel) this.#wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (err) {
      lost = true;
      client.end().catch(() => undefined);
      throw err;
    } finally {
      this.#starting = undefined;
    }
    if (this.#closed || this.#listeners.size === 0) {
      lost = true;
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#pause = 100;
  }

  #reconnect(): void {
    if (this.#closed || this.#listeners.size === 0 || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#starting ??= this.#listen();
      this.#starting.then(
        () => this.#wake(), // notifications sent while away were missed
        () => {
          this.#pause = Math.min(2 * this.#pause, MAX_PAUSE_MS);
          this.#reconnect();
        },
      );
    }, this.#pause);
    this.#timer.unref();
  }

  #wake(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
