import type { Reservation } from './types.js';

/**
 * A transaction as a backend stores it. `stack` and `info` are JSON texts that only the
 * runtime guard encodes and decodes, so every backend fails the same way on bad data.
 * Every text field round-trips byte for byte (any Unicode, any length up to the limit).
 */
export interface StoredRecord {
  readonly status: string;
  /** JSON array of `{type, state}`, oldest first. */
  readonly stack: string;
  /** JSON object of `TxInfo`. */
  readonly info: string;
  readonly reservation: Reservation | null;
  /** Epoch ms of the store's clock (`now()`) before which scans skip it; 0 when not deferred. */
  readonly deferUntil: number;
  /** Its priority (`MIN_PRIORITY..MAX_PRIORITY`); absent reads as 0 (`DEFAULT_PRIORITY`). */
  readonly priority?: number;
}
