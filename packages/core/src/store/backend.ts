import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StoreCapabilities } from './capabilities.js';
import type { IdRange, Reservation } from './types.js';

/**
 * A transaction as a backend stores it. `stack` and `info` are JSON texts that only the
 * runtime guard encodes and decodes, so every backend fails the same way on bad data.
 */
export interface StoredRecord {
  readonly status: string;
  /** JSON array of `{type, state}`, oldest first. */
  readonly stack: string;
  /** JSON object of `TxInfo`. */
  readonly info: string;
  readonly reservation: Reservation | null;
  /** Epoch ms before which scans skip it; 0 when not deferred. */
  readonly deferUntil: number;
}

/** A new record: always unreserved and not deferred. */
export type NewRecord = Pick<StoredRecord, 'status' | 'stack' | 'info'> & { status: Status };

/** What a fenced write changes. Absent fields stay as they are. */
export interface RecordWrite {
  readonly status?: Status;
  readonly stack?: string;
  readonly info?: string;
  /** Release the reservation, hidden from scans until `deferUntil` (0 = not deferred). */
  readonly release?: { readonly deferUntil: number };
  /** Delete the record (and with it the reservation). */
  readonly delete?: boolean;
}

/** One page of a runnable scan, before the guard adds timing. */
export interface BackendScan {
  readonly ids: string[];
  readonly itemsRead: number;
  readonly nextDeferralAt?: number;
}

/**
 * What a backend implements: small, dumb and atomic. The runtime guard in core
 * (`createFatesStore`) validates arguments, checks preconditions, encodes data and keeps
 * state, so none of that is repeated per backend. Every hook is required.
 *
 * Atomicity: each method is one atomic step against the shared data. `write` must apply
 * only when the stored reservation equals `reservation` (both fields): this is fencing.
 */
export interface StoreBackend {
  readonly capabilities: StoreCapabilities;

  /** Connects and prepares (schema, scripts). Called once by the guard. */
  open(): Promise<void>;
  /** Disconnects. Called once by the guard. */
  close(): Promise<void>;

  /** Inserts if no record has this id; false when one exists. */
  insert(id: FateId, record: NewRecord): Promise<boolean>;
  read(id: FateId): Promise<StoredRecord | undefined>;
  /**
   * Sets the reservation if the record exists and is unreserved, or is already held by
   * exactly this reservation (a retry). Returns the record as reserved, or why not.
   */
  tryReserve(id: FateId, reservation: Reservation): Promise<StoredRecord | 'absent' | 'held'>;
  /** Applies `change` only if the stored reservation equals `reservation`; else false. */
  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean>;
  /** Clears the reservation only if it still equals `reservation`. */
  clearReservation(id: FateId, reservation: Reservation): Promise<boolean>;

  /** Every record, or those in `statuses` when given (a hint: the guard filters again). */
  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>>;
  /**
   * Runnable ids in `range` (all ids when undefined), ascending: status SUBMITTED,
   * IN_PROGRESS or FAILED_IN_PROGRESS, unreserved, `deferUntil <= now`.
   */
  scanRunnable(range: IdRange | undefined, now: number): Promise<BackendScan>;
  reservations(): Promise<Array<{ id: string; reservation: Reservation }>>;

  /** Creates or refreshes the liveness record of `instanceId`, live for `timeoutMs`. */
  heartbeat(instanceId: string, timeoutMs: number): Promise<void>;
  /** Removes the liveness record (clean shutdown). */
  removeInstance(instanceId: string): Promise<void>;
  /** Ids of instances whose liveness has not lapsed at `now`. */
  liveInstances(now: number): Promise<string[]>;

  /**
   * Subscribes to wake-ups published when a SUBMITTED record is inserted by any client.
   * Backends without `capabilities.wakeups` return a no-op unsubscribe.
   */
  subscribeWakeups(listener: () => void): Promise<() => Promise<void>>;
}
