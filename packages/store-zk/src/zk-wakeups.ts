import type { ZkClient } from './zk-client.js';
import { WatchEvent } from './zk-native.js';

/** How soon a watch that could not be set is tried again. */
const REARM_RETRY_MS = 1_000;

/**
 * Wake-ups through one `wakeup` znode: an insert of SUBMITTED work bumps its version, and
 * every subscribed client keeps a data watch on it. One watch per client, re-set after
 * each event, rather than child watches on 256 buckets: those would also fire for NEW
 * records and deletes, and each would need re-setting after every event.
 */
export class ZkWakeups {
  readonly #client: ZkClient;
  readonly #path: string;
  readonly #listeners = new Set<() => void>();
  /** The session whose watch is set, or -1. */
  #armed = -1;
  #retry: NodeJS.Timeout | undefined;
  /** The wake-up write in flight (settled when there is none). */
  #sending: Promise<void> = Promise.resolve();
  /** The shared wake-up write waiting for it. */
  #next: Promise<void> | undefined;

  constructor(client: ZkClient, path: string) {
    this.#client = client;
    this.#path = path;
    // Watches die with their session: set it again, and wake listeners for what was missed.
    client.onNewSession(() => {
      this.#armed = -1;
      if (this.#listeners.size === 0) return;
      this.#emit();
      this.#arm().catch(() => this.#scheduleRetry());
    });
  }

  /**
   * Publishes a wake-up to every watching client, sent after every request this client
   * has sent so far (so applied after them). One wake-up write is in flight at a time:
   * the calls made meanwhile share the next one, sent when it is answered, so concurrent
   * inserts cost about one write per round trip rather than one each.
   */
  publish(): Promise<void> {
    this.#next ??= this.#sending.then(() => {
      this.#next = undefined;
      const sent = this.#client.set(this.#path, '', -1).then(() => undefined);
      this.#sending = sent.catch(() => undefined);
      return sent;
    });
    return this.#next;
  }

  async subscribe(listener: () => void): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    try {
      await this.#arm();
    } catch (err) {
      this.#listeners.delete(listener);
      throw err;
    }
    return async () => {
      this.#listeners.delete(listener);
    };
  }

  close(): void {
    this.#listeners.clear();
    clearTimeout(this.#retry);
  }

  async #arm(): Promise<void> {
    await this.#client.session();
    const generation = this.#client.generation;
    if (this.#armed === generation) return;
    this.#armed = generation;
    try {
      await this.#client.watchData(this.#path, (type) => this.#fired(type));
    } catch (err) {
      this.#armed = -1;
      throw err;
    }
    // The session may have been replaced while the watch was being set.
    if (this.#client.generation !== generation) this.#armed = -1;
    else this.#armed = generation;
  }

  #fired(type: number): void {
    // Session events are delivered to every watch but do not consume it.
    if (type === WatchEvent.SESSION) return;
    this.#armed = -1;
    if (this.#listeners.size === 0 || this.#client.closed) return;
    this.#emit();
    this.#arm().catch(() => this.#scheduleRetry());
  }

  #emit(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // a listener's failure is its own; the others still get their wake-up
      }
    }
  }

  #scheduleRetry(): void {
    if (this.#retry || this.#client.closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#listeners.size === 0 || this.#client.closed) return;
      this.#arm().catch(() => this.#scheduleRetry());
    }, REARM_RETRY_MS);
    this.#retry.unref();
  }
}
