import type { FatesStore } from '../contract/fates-store.js';
import type { FateEvents } from './events.js';

/**
 * The engine's age-off schedule: the first engine (in membership order) sweeps now and
 * then, one sweep at a time, off the heartbeat's path.
 */
export class AgeOffSweep {
  readonly #store: FatesStore;
  readonly #o: { readonly everyMs: number; readonly retentionMs: number };
  readonly #onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  #last = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | undefined;

  constructor(
    store: FatesStore,
    options: { readonly everyMs: number; readonly retentionMs: number },
    onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void,
  ) {
    this.#store = store;
    this.#o = options;
    this.#onEvent = onEvent;
  }

  /** The sweep in progress, if any (awaited when membership stops). */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Starts a sweep when none runs and the last began at least `everyMs` before `now`. */
  due(now: number): void {
    if (this.#running || now - this.#last < this.#o.everyMs) return;
    this.#last = now;
    this.#running = this.#sweep().finally(() => {
      this.#running = undefined;
    });
  }

  /** Off the heartbeat's path: a sweep lists every finished transaction. */
  async #sweep(): Promise<void> {
    try {
      const { deleted, stamped } = await this.#store.ageOff({
        retentionMs: this.#o.retentionMs,
      });
      if (deleted + stamped > 0) this.#onEvent('agedOff', { deleted, stamped });
    } catch (error) {
      this.#onEvent('warning', { message: 'age-off sweep failed', error });
    }
  }
}
