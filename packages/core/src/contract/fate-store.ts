import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StepData } from '../step.js';
import type { InfoKey, Reservation, TxInfo } from './types.js';

/** One change to a reserved transaction; `FateStore.commit` applies several atomically. */
export type TxChange =
  | { readonly op: 'setStatus'; readonly status: Status }
  | { readonly op: 'push'; readonly step: StepData }
  | { readonly op: 'pop' }
  | { readonly op: 'setInfo'; readonly key: InfoKey; readonly value: TxInfo[InfoKey] | undefined }
  | { readonly op: 'delete' }
  | { readonly op: 'forceDelete' }
  | { readonly op: 'unreserve'; readonly deferMs?: number };

/**
 * One reserved transaction (seed PR: `FatesStore.reserve(id)` returns it).
 *
 * Every write is conditional on the stored reservation still being this one (fencing):
 * once it was cleared, deleted or unreserved, writes throw `FATE_NOT_RESERVED`.
 *
 * @example
 * const one = await store.reserve(id);
 * await one.setStatus(Status.FAILED_IN_PROGRESS);
 * await one.unreserve();
 */
export interface FateStore {
  readonly id: FateId;
  readonly reservation: Reservation;
  /**
   * The stored deferral when it was reserved (store clock, epoch ms, 0 = none). Work
   * finders skip deferred transactions, but a scan answered just before a deferral was
   * stored can still name one: the engine checks this after reserving.
   */
  readonly deferUntil: number;
  /**
   * True when this reservation moved it from SUBMITTED to IN_PROGRESS (`tryReserve` with
   * `start`): nothing of it can have run before. False when it was IN_PROGRESS already, or
   * when the answer came from a repeat after a lost reply (then nobody knows).
   */
  readonly startedNow: boolean;
  /** Its priority as stored (fixed at the seed; 0 on a backend without priorities). */
  readonly priority: number;
  /** False once unreserved, deleted, or a write found the reservation gone. */
  readonly isReserved: boolean;
  /**
   * True after a write whose outcome is unknown (the store did not answer, even when asked
   * again): the cached state may be wrong, so every read and write throws
   * `FATE_OUTCOME_UNKNOWN` until `refresh()` has read the record again. Meanwhile the
   * engine's next `releaseOrphans` may release the reservation; `refresh()` then answers false.
   */
  readonly outcomeUnknown: boolean;

  getStatus(): Promise<Status>;
  setStatus(status: Status): Promise<void>;

  /** The current (newest) step, if any. */
  top(): Promise<StepData | undefined>;
  /** Allowed in NEW and IN_PROGRESS; the 101st step is `FATE_STACK_OVERFLOW`. */
  push(step: StepData): Promise<void>;
  /** Allowed in FAILED_IN_PROGRESS and SUCCESSFUL. */
  pop(): Promise<void>;
  /** Oldest first. */
  getStack(): Promise<readonly StepData[]>;

  getInfo<K extends InfoKey>(key: K): Promise<TxInfo[K] | undefined>;
  setInfo<K extends InfoKey>(key: K, value: TxInfo[K] | undefined): Promise<void>;

  /** Allowed in NEW, SUBMITTED, SUCCESSFUL and FAILED; ends the reservation. */
  delete(): Promise<void>;
  /** Deletes in any status (admin). Ends the reservation. */
  forceDelete(): Promise<void>;
  /**
   * Releases the reservation; work finders of every client skip the transaction for
   * `deferMs`. A second call throws; after `delete` it does nothing.
   */
  unreserve(deferMs?: number): Promise<void>;

  /**
   * Applies the changes in order, each checked against the state the previous one left,
   * as one atomic, fenced write: all or nothing.
   */
  commit(changes: readonly TxChange[]): Promise<void>;

  /**
   * Reads the record again and takes what is stored as the truth: true when the
   * reservation is still this one (the handle is usable again), false when it is gone.
   */
  refresh(): Promise<boolean>;

  /**
   * Gives the reservation up without writing: the handle becomes unusable and the
   * reservation an orphan, which `releaseOrphans` (or this client's liveness lapsing)
   * releases later. For a holder whose release keeps failing while it has to stop.
   */
  abandon(): void;
}
