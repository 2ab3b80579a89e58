import type { FateId } from '../ids.js';
import type { StoreCapabilities } from './capabilities.js';
import type { ClaimOptions, ClaimResult } from './claim-types.js';
import type { FateStore } from './fate-store.js';
import type { InstanceRecordView, LiveInstance, RegisterOptions } from './liveness-types.js';
import type {
  AgeOffCandidate,
  AgeOffQuery,
  ListPage,
  ListQuery,
  StoreCounts,
  StoreQueryCosts,
} from './query-types.js';
import type {
  AgeOffOptions,
  AgeOffResult,
  FateView,
  IdRange,
  ListFilter,
  ReservationEntry,
  ReserveOptions,
  ScanOptions,
  ScanResult,
  SeedRequest,
  SeedResult,
  TryReserveOptions,
  TxSummary,
} from './types.js';

/**
 * All transactions of one store, as seen by one client (instance).
 *
 * Get one with `openStore(url)`; every backend is wrapped in the same runtime guard, so
 * argument checks, state checks, liveness judgement, retries of unknown outcomes and error
 * codes are the same everywhere.
 */
export interface FatesStore {
  /** This client's instance id, as given (or a fresh UUID). */
  readonly instanceId: string;
  /**
   * This client's incarnation, `<instanceId>@<random>`, fresh for every open: the lock id of
   * its reservations and of its liveness record.
   */
  readonly lockId: string;
  /** How long this client's liveness lasts without a heartbeat, and how long others are watched. */
  readonly livenessTimeoutMs: number;
  readonly capabilities: StoreCapabilities;

  /** The store's clock as this client knows it, epoch ms (what deferrals are judged by). */
  now(): number;

  /** A new, empty transaction in status NEW. */
  create(): Promise<FateId>;
  /**
   * A SUBMITTED transaction with its first step; with a key, at most one per key. A reply
   * lost after the store applied it is retried with the same id, never duplicated.
   */
  seed(request: SeedRequest): Promise<SeedResult>;
  /** `seed` of many, in as few round trips as the store allows; results in order. */
  seedMany(requests: readonly SeedRequest[]): Promise<SeedResult[]>;

  /**
   * Reserves `id` if it exists and nobody holds it; otherwise `undefined`. A lost reply is
   * retried with the same reservation; if the outcome stays unknown the call fails and the
   * reservation, if it was stored, is released in the background.
   */
  tryReserve(id: FateId, options?: TryReserveOptions): Promise<FateStore | undefined>;
  /**
   * Reserves and starts up to `limit` runnable transactions of `range` (all ids when
   * undefined), lowest ids first, each under its own reservation, as `tryReserve(id,
   * {start: true})` would: one backend call where the backend claims many
   * (`batchedClaims`), else a scan and one reservation per id. A reply lost after the store
   * applied it is asked again and answers what the first took; if the outcome stays
   * unknown the call fails and whatever it stored is released in the background.
   */
  claimRunnable(range: IdRange | undefined, options: ClaimOptions): Promise<ClaimResult>;
  /** True when `claimRunnable` is one backend call (`StoreBackend.claimMany`). */
  readonly batchedClaims: boolean;
  /**
   * Finish and claim next: the next commit of `fate` (a handle this client holds) that ends
   * its reservation (unreserve or delete) also claims up to `limit` runnable transactions
   * of `range`, as `claimRunnable` does: in the same backend call where the backend has
   * `finishAndClaim` (`batchedFinish`), else right after the write applied. Resolves once
   * that commit answered, with what was claimed: nothing when the write was fenced off,
   * its outcome stayed unknown (whatever the claim stored is then released in the
   * background), or the handle ended otherwise. A later call replaces an earlier one.
   */
  claimNext(
    fate: FateStore,
    range: IdRange | undefined,
    options: ClaimOptions,
  ): Promise<ClaimResult>;
  /** True when `claimNext` rides on the finishing write (`StoreBackend.finishAndClaim`). */
  readonly batchedFinish: boolean;
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
  /**
   * Every transaction matching `filter`, decoded: reads the whole store. For an admin view
   * of a large store use `listPage`.
   */
  list(filter?: ListFilter): Promise<TxSummary[]>;
  /**
   * One page of transactions in id order, filtered, from a keyset cursor (`query.after`,
   * the previous page's `next`): rows without stacks. With an indexing backend
   * (`queryCosts.listPage === 'indexed'`) a page costs about `limit` rows read, whatever the
   * store's size; a filter that matches few rows may return a short page with `next` set.
   */
  listPage(query?: ListQuery): Promise<ListPage>;
  /** Transactions by status and op, counted by the store (no record is decoded). */
  counts(): Promise<StoreCounts>;
  /**
   * Finished transactions due for age-off by the store's finish-time index (their own
   * `retainMs`, else `retentionMs`), oldest first: candidates only; `ageOff` checks each
   * under its reservation before deleting it.
   */
  ageOffDue(query?: AgeOffQuery): Promise<AgeOffCandidate[]>;
  /** How this backend answers `ageOff`/`ageOffDue`, `counts` and `listPage`. */
  readonly queryCosts: StoreQueryCosts;
  /** Runnable ids within `range` (all when omitted), in id order, one page at a time. */
  scanRunnable(range?: IdRange, options?: ScanOptions): Promise<ScanResult>;
  /** Every reservation currently held, by anyone (within `range` when given). */
  reservations(range?: IdRange): Promise<ReservationEntry[]>;

  /**
   * Records this client as live. With a `group` it is an engine and takes part in
   * membership (partitions); without, it only keeps its reservations from being cleared.
   * Its heartbeat is asked again after a failure or a lost reply (20, 100, 400 ms), so one
   * dropped request does not fail an engine's start.
   */
  registerInstance(options?: RegisterOptions): Promise<void>;
  /** Marks this client gone: it leaves membership at once and its reservations may be cleared. */
  unregisterInstance(): Promise<void>;
  /** Refreshes this client's liveness: one attempt (the next beat follows a failed one). */
  heartbeat(): Promise<void>;
  /** Instances this client has observed live (renewing), sorted by lock id. */
  liveInstances(): Promise<LiveInstance[]>;
  /**
   * Every liveness record as it reads now, with its last heartbeat's age by the store's
   * clock: for people and admin tools reading once (liveness itself is judged by watching).
   */
  instanceRecords(): Promise<InstanceRecordView[]>;
  /** True while `id` (a lock id, or an instance id: any of its incarnations) looks live. */
  isAlive(id: string): Promise<boolean>;
  /**
   * Clears reservations (within `range` when given) whose holder this client has watched
   * for a full liveness timeout without seeing it renew, or that closed; returns them.
   * Their reservations are always listed before the liveness read that judges them.
   * `sweepStrays` (for engines, which own a share): also clears, anywhere in the id space,
   * holders lapsed half a timeout longer than that, whose share's owner did not clear them.
   * An admin client clearing one id's dead holder passes that id's range and no sweep.
   */
  clearDeadReservations(
    range?: IdRange,
    options?: { readonly sweepStrays?: boolean },
  ): Promise<ReservationEntry[]>;
  /**
   * Self-reconciliation: releases reservations stored under this client's lock id that no
   * handle of this client holds (left by a lost reply, or by a store that lost a release),
   * or that a handle holds only with an unknown outcome (`outcomeUnknown`: it refuses every
   * use until `refresh()`, which then finds the reservation gone and ends the handle).
   */
  releaseOrphans(): Promise<ReservationEntry[]>;

  /**
   * Deletes finished transactions older than their retention (an age-off stamp in each, no
   * state in memory); stamps those finished without one. One sweep, at most `limit` changes.
   */
  ageOff(options?: AgeOffOptions): Promise<AgeOffResult>;

  /**
   * Calls `listener` when another client seeds work (only where
   * `capabilities.wakeups`); returns the unsubscribe function.
   */
  onWakeup(listener: () => void): Promise<() => Promise<void>>;

  /** Closes once; later calls do nothing, other operations throw `FATE_CLOSED`. */
  close(): Promise<void>;
}

export type { IdRange };
