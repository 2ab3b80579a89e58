import type { FateId } from '../ids.js';
import type { FateStore } from './fate-store.js';

/** Most transactions one `claimRunnable` takes. */
export const MAX_CLAIM = 1_000;

/** `FatesStore.claimRunnable`'s options. */
export interface ClaimOptions {
  /** Most transactions to claim (1..1,000). */
  readonly limit: number;
}

/** What `FatesStore.claimRunnable` took. */
export interface ClaimResult {
  /** Reserved to run, lowest ids first: one handle each, as `tryReserve(id, {start})`. */
  readonly claimed: FateStore[];
  /**
   * Claimed but let go at once, unchanged and unreserved: records whose stored status does
   * not decode (`FATE_CORRUPT_DATA`), each with its error.
   */
  readonly refused: Array<{ readonly id: FateId; readonly error: Error }>;
}
