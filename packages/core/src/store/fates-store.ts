import type { FateId } from '../ids.js';
import type { StoreCapabilities } from './capabilities.js';
import type { FateStore } from './fate-store.js';
import type {
  FateView,
  IdRange,
  ListFilter,
  ReservationEntry,
  ReserveOptions,
  ScanResult,
  SeedRequest,
  SeedResult,
  TxSummary,
} from './types.js';

/**
 * All transactions of one store, as seen by one client (instance).
 *
 * Get one with `openStore(url)`; every backend is wrapped in the same runtime guard, so
 * argument checks, state checks and error codes are the same everywhere.
 */
export interface FatesStore {
  /** This client's instance (lock) id, used in its reservations and liveness record. */
  readonly instanceId: string;
  readonly capabilities: StoreCapabilities;

  /** A new, empty transaction in status NEW. */
  create(): Promise<FateId>;
  /** A SUBMITTED transaction with its first step; with a key, at most one per key. */
  seed(request: SeedRequest): Promise<SeedResult>;

  /** Reserves `id` if it exists and nobody holds it; otherwise `undefined`. */
  tryReserve(id: FateId): Promise<FateStore | undefined>;
  /**
   * Waits until `id` can be reserved. An absent id is `FATE_NOT_FOUND` at once; the
   * signal gives `FATE_ABORTED`, the timeout `FATE_TIMEOUT`.
   */
  reserve(id: FateId, options?: ReserveOptions): Promise<FateStore>;
  /**
   * Deletes `id` in any status (admin), even when its stored status cannot be decoded, so
   * no handle can be made for it. Waits for the reservation as `reserve` does, with the
   * same errors; the delete is a fenced write under that reservation.
   */
  forceDelete(id: FateId, options?: ReserveOptions): Promise<void>;

  /** A snapshot; an absent id reads UNKNOWN with an empty stack and no info. */
  read(id: FateId): Promise<FateView>;
  list(filter?: ListFilter): Promise<TxSummary[]>;
  /** Runnable ids within `range` (all when omitted), in id order. */
  scanRunnable(range?: IdRange): Promise<ScanResult>;
  /** Every reservation currently held, by anyone. */
  reservations(): Promise<ReservationEntry[]>;

  /** Records this instance as live (and, in automatic mode, keeps it so). */
  registerInstance(): Promise<void>;
  /** Removes this instance's liveness record (it leaves membership at once). */
  unregisterInstance(): Promise<void>;
  /** Refreshes this instance's liveness. */
  heartbeat(): Promise<void>;
  /** Live instance ids, sorted. */
  liveInstances(): Promise<string[]>;
  isAlive(instanceId: string): Promise<boolean>;
  /** Clears reservations whose holder is not live; returns how many. */
  clearDeadReservations(): Promise<number>;

  /**
   * Calls `listener` when another client seeds work (only where
   * `capabilities.wakeups`); returns the unsubscribe function.
   */
  onWakeup(listener: () => void): Promise<() => Promise<void>>;

  /** Closes once; later calls do nothing, other operations throw `FATE_CLOSED`. */
  close(): Promise<void>;
}

export type { IdRange };
