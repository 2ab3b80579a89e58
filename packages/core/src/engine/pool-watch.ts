import type { FateEvents } from './events.js';
import { groupsRun, type Pools } from './pools.js';

/** How often pools are looked at for saturation, ms. */
const LOOK_EVERY_MS = 1_000;

/**
 * Watches this engine's pools and the ops it meets: warns when a pool has had every worker
 * busy and a full queue for longer than `saturationMs` (its ops are waiting behind each
 * other), and when runnable transactions carry an op that no live engine runs (they would
 * wait for ever). Warnings repeat at most every few seconds per message (the logger).
 */
export class PoolWatch {
  readonly #pools: Pools;
  readonly #saturationMs: number;
  readonly #onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  readonly #saturatedSince = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    pools: Pools,
    saturationMs: number,
    onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void,
  ) {
    this.#pools = pools;
    this.#saturationMs = saturationMs;
    this.#onEvent = onEvent;
  }

  start(): void {
    this.#timer = setInterval(() => this.#look(), LOOK_EVERY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A runnable transaction's op that this engine does not run: does anyone? */
  foreign(op: string, liveGroups: readonly string[]): void {
    if (groupsRun(liveGroups, op)) return;
    this.#onEvent('warning', {
      message: `runnable transactions of op "${op}" wait: no live engine has a pool for it`,
      error: undefined,
    });
  }

  #look(): void {
    const now = performance.now();
    for (const pool of this.#pools.all) {
      const saturated = pool.queue.idle === 0 && pool.queue.full;
      if (!saturated) {
        this.#saturatedSince.delete(pool.name);
        continue;
      }
      const since = this.#saturatedSince.get(pool.name) ?? now;
      this.#saturatedSince.set(pool.name, since);
      if (now - since >= this.#saturationMs) {
        this.#onEvent('saturated', { pool: pool.name, forMs: Math.round(now - since) });
        this.#onEvent('warning', {
          message: `pool ${pool.name} has been saturated (every worker busy, queue full) for ${Math.round((now - since) / 1_000)} s`,
          error: undefined,
        });
      }
    }
  }
}
