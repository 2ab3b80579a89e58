import type { RedisClient } from './redis-script.js';

/**
 * Wake-ups over pub/sub. A subscribed connection can send nothing but (un)subscribe
 * commands, so it is a second connection, opened on the first subscription only, and
 * shared by every listener of this client: a single Redis or a Cluster client (whose
 * subscriber picks one node; a Cluster broadcasts PUBLISH to every node). ioredis
 * resubscribes after a reconnect, and a Cluster's subscriber moves when its node goes.
 */
export class RedisWakeups {
  readonly #connect: () => Promise<RedisClient>;
  readonly #channel: string;
  readonly #listeners = new Set<() => void>();
  #subscriber?: Promise<RedisClient>;
  /** The SUBSCRIBE in force, awaited by every subscription so none returns before it. */
  #subscription?: Promise<unknown>;

  /** `connect` opens a fresh connection (the backend's settings). */
  constructor(connect: () => Promise<RedisClient>, channel: string) {
    this.#connect = connect;
    this.#channel = channel;
  }

  async subscribe(listener: () => void): Promise<() => Promise<void>> {
    const subscriber = await this.#open();
    // A wrapper per subscription, so the same function subscribed twice is two listeners.
    const entry = () => listener();
    this.#listeners.add(entry);
    this.#subscription ??= subscriber.subscribe(this.#channel);
    try {
      await this.#subscription;
    } catch (err) {
      this.#listeners.delete(entry);
      this.#subscription = undefined;
      throw err;
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0 && this.#subscription) {
        // Commands on one connection run in order, so a later SUBSCRIBE follows this one.
        this.#subscription = undefined;
        await subscriber.unsubscribe(this.#channel).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#subscription = undefined;
    const pending = this.#subscriber;
    this.#subscriber = undefined;
    const subscriber = await pending?.catch(() => undefined);
    subscriber?.disconnect();
  }

  #open(): Promise<RedisClient> {
    if (!this.#subscriber) {
      const opening = this.#connect().then((redis) => {
        redis.on('message', (channel: string) => {
          if (channel !== this.#channel) return;
          for (const listener of [...this.#listeners]) {
            try {
              listener();
            } catch {
              // A failing listener must not stop the others, nor the connection.
            }
          }
        });
        return redis;
      });
      // A failed open is not cached: the next subscription tries again.
      opening.catch(() => {
        if (this.#subscriber === opening) this.#subscriber = undefined;
      });
      this.#subscriber = opening;
    }
    return this.#subscriber;
  }
}
