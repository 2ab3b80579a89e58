import type { TxCounts, TxSource } from './tx-source.js';

/** How far back throughput is shown, ms. */
export const HISTORY_MS = 10 * 60_000;

/** Finished transactions between two samples, per second. */
export interface Rate {
  readonly from: number;
  readonly to: number;
  readonly succeededPerS: number;
  readonly failedPerS: number;
}

/**
 * Reads the store's counts at most once per `periodMs` — and, when counting is slow (a large
 * store), at most a tenth of the time — however many pages ask (concurrent askers share one
 * read), and keeps the samples of the last minutes: throughput is the growth
 * of the SUCCESSFUL and FAILED counts between samples, as this console watched them.
 * Transactions deleted as they finish (auto-clean) are not counted by it.
 */
export class CountSampler {
  readonly #source: TxSource;
  readonly #periodMs: number;
  readonly #history: TxCounts[] = [];
  #reading: Promise<TxCounts> | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  /** How long the last read took, ms: reads are spaced at least ten times that apart. */
  #readMs = 0;

  constructor(source: TxSource, periodMs: number) {
    this.#source = source;
    this.#periodMs = periodMs;
  }

  /** The latest counts, read again when older than the period. */
  async latest(): Promise<TxCounts> {
    const last = this.#history[this.#history.length - 1];
    const spacing = Math.max(this.#periodMs, 10 * this.#readMs);
    if (last && performance.now() - this.#readAt < spacing) return last;
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /**
   * Finished per second over about the last `windowMs` (from the oldest sample inside it to
   * the newest); undefined until two samples span some time.
   */
  rate(windowMs: number): Rate | undefined {
    const b = this.#history[this.#history.length - 1];
    const a = this.#history.find((c) => b !== undefined && c.at >= b.at - windowMs);
    if (!a || !b || b.at <= a.at) return undefined;
    const s = (b.at - a.at) / 1_000;
    const grew = (status: string) =>
      Math.max(0, (b.byStatus[status] ?? 0) - (a.byStatus[status] ?? 0)) / s;
    return { from: a.at, to: b.at, succeededPerS: grew('SUCCESSFUL'), failedPerS: grew('FAILED') };
  }

  async #read(): Promise<TxCounts> {
    const started = performance.now();
    const counts = await this.#source.counts();
    this.#readAt = performance.now();
    this.#readMs = this.#readAt - started;
    this.#history.push(counts);
    while (this.#history.length > 1 && counts.at - (this.#history[0] as TxCounts).at > HISTORY_MS)
      this.#history.shift();
    return counts;
  }
}
