import type { FateId } from '../ids.js';

/** Backoff after a run failed in a way that is neither the step's nor the store's. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 5 * 60_000;
/** Ids whose backoff is remembered (the oldest are forgotten past this). */
const BACKOFF_MEMORY = 10_000;

/**
 * The deferral of a transaction whose run failed unexpectedly (a bug, data no code path
 * expected): it doubles with each failure in a row, so nothing ever loops hot.
 */
export class FailureBackoff {
  readonly #failures = new Map<FateId, number>();

  /** A run of `id` ended normally: its next failure starts from the first backoff. */
  succeeded(id: FateId): void {
    this.#failures.delete(id);
  }

  /** A run of `id` failed unexpectedly: how long to defer it, ms. */
  next(id: FateId): number {
    const failures = (this.#failures.get(id) ?? 0) + 1;
    this.#failures.delete(id);
    this.#failures.set(id, failures);
    if (this.#failures.size > BACKOFF_MEMORY) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
    return Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
  }
}
