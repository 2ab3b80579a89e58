import type { FateId, FateKey } from '../ids.js';
import type { JsonValue } from '../json.js';
import type { Status } from '../status.js';
import type { StepData } from '../step.js';

/**
 * Who holds a transaction: the holder's instance (lock) id and a fresh UUID per attempt,
 * so a retry after a lost acknowledgement recognises its own win.
 */
export interface Reservation {
  readonly lockId: string;
  readonly uuid: string;
}

/** An error recorded on a transaction. */
export interface TxError {
  readonly message: string;
  readonly name?: string;
  /** The error's `code`, when it had a string or number one. */
  readonly code?: string;
  readonly stack?: string;
  /** The error's `cause`, recorded the same way (a few levels deep at most). */
  readonly cause?: TxError;
  /** Errors thrown by `undo` while the transaction was rolled back. */
  readonly undoErrors?: readonly TxError[];
}

/** Transaction info, by key. */
export interface TxInfo {
  opName?: string;
  autoClean?: boolean;
  error?: TxError;
  returnValue?: JsonValue;
  /** Creation time, epoch ms. */
  created?: number;
  /** Age-off stamp: when it finished (store clock, epoch ms), or was first seen finished. */
  ageOff?: number;
  /** How long to keep it once finished, ms (set at seed); else the engine's retention. */
  retainMs?: number;
  key?: FateKey;
  /**
   * A random token of the keyed seed that inserted it, so a seed asked again after a lost
   * reply tells its own insert from another seed of the same key, even one stamped in the
   * same millisecond with the same step.
   */
  seedToken?: string;
  /**
   * State of the engine's own records (schedules, concurrency slots: op names starting with
   * `fate:`), which stay NEW and are never run.
   */
  internal?: JsonValue;
  /** Failed attempts of a step whose call is retried (`RetryPolicy`). */
  retry?: TxRetry;
}

/** The retry count of one step, stored with the transaction (`info.retry`). */
export interface TxRetry {
  /** The step: its depth on the stack (1 = the first step) and its type. */
  readonly depth: number;
  readonly type: string;
  /** Calls of it that failed so far. */
  readonly attempts: number;
  /** Calls its policy allows in all. */
  readonly maxAttempts: number;
  /** The last few errors, oldest first (bounded: no stacks, short messages). */
  readonly errors: readonly TxError[];
}

export type InfoKey = keyof TxInfo;

/** Every info key, for callers that iterate them. */
export const INFO_KEYS: readonly InfoKey[] = [
  'opName',
  'autoClean',
  'error',
  'returnValue',
  'created',
  'ageOff',
  'retainMs',
  'key',
  'retry',
  'internal',
];

/** A read-only view of one transaction. An absent id reads UNKNOWN, empty. */
export interface FateView {
  readonly id: FateId;
  readonly status: Status;
  readonly stack: readonly StepData[];
  readonly info: Readonly<TxInfo>;
  readonly reservation?: Reservation;
  /** Epoch ms before which work finders skip it (0 = not deferred). */
  readonly deferUntil: number;
  /** Its priority, as stored (0 on a backend without `capabilities.priorities`). */
  readonly priority: number;
}

/** One row of `list`. `corrupt` says why the record could not be decoded. */
export interface TxSummary {
  readonly id: FateId;
  readonly status: Status;
  readonly opName?: string;
  readonly created?: number;
  /** Type of the top step. */
  readonly top?: string;
  readonly stackDepth: number;
  readonly reservation?: Reservation;
  readonly deferUntil: number;
  /** Its priority, as stored (0 on a backend without `capabilities.priorities`). */
  readonly priority: number;
  readonly corrupt?: string;
}

export interface ListFilter {
  readonly statuses?: Iterable<Status>;
  readonly opName?: string;
}

/** What to seed: the first step and info. With `key`, seeding is deduplicated. */
export interface SeedRequest {
  readonly step: StepData;
  readonly opName: string;
  readonly key?: FateKey;
  readonly autoClean?: boolean;
  /** How long to keep it once finished, ms; default: the age-off sweep's retention. */
  readonly retainMs?: number;
  /**
   * Hidden from work finders for this long after the insert, ms, by the store's clock
   * (`seed-deferral.ts`). Not with `runAt`.
   */
  readonly delayMs?: number;
  /**
   * Runnable from this time (epoch ms or a `Date`), turned into a delay with this client's
   * estimate of the store's clock (`now()`) as it is seeded. Not with `delayMs`.
   */
  readonly runAt?: number | Date;
  /**
   * Inserted NEW instead of SUBMITTED: stored but never run until something reserves it and
   * sets it SUBMITTED (schedules seed this way, then submit once their own write is fenced).
   */
  readonly held?: boolean;
  /** Stored in info as `internal` (the engine's own records). */
  readonly internal?: JsonValue;
  /**
   * An integer in `MIN_PRIORITY..MAX_PRIORITY` (-5..5), default 0: within a partition,
   * work finders take higher priorities first (`contract/priority.ts`). Fixed at the insert.
   */
  readonly priority?: number;
}

/** How `ageOff` sweeps. */
export interface AgeOffOptions {
  /** Keep finished transactions this long (store clock), ms. Default 7 days. */
  readonly retentionMs?: number;
  /** Most transactions stamped or deleted in one call. Default 1,000. */
  readonly limit?: number;
}

/** What one `ageOff` sweep did. */
export interface AgeOffResult {
  /** Finished transactions that had no age-off stamp and got one. */
  readonly stamped: number;
  readonly deleted: number;
}

export interface SeedResult {
  readonly id: FateId;
  /** False when a keyed transaction already existed (nothing was written). */
  readonly created: boolean;
}

/** A contiguous range of ids: `start` inclusive, `end` exclusive; either may be open. */
export interface IdRange {
  readonly start?: string;
  readonly end?: string;
}

/** How much of a range one scan reads. */
export interface ScanOptions {
  /** Most ids in one page. Default 1,000. */
  readonly limit?: number;
  /** Continue after this id (the `last` of the previous page). */
  readonly after?: string;
  /** The priority `after` was read at (the `lastPriority` of the previous page); default 0. */
  readonly afterPriority?: number;
}

/**
 * The outcome of one scan for runnable work: one page of the range, higher priorities first
 * and in id order within a priority (plain id order on a backend without priorities).
 */
export interface ScanResult {
  /** Runnable ids (SUBMITTED, IN_PROGRESS, FAILED_IN_PROGRESS; unreserved; not deferred). */
  readonly ids: FateId[];
  /** The op name of each id, in the same order ('' when none). */
  readonly ops: string[];
  /** The priority of each id, in the same order (all 0 on a backend without priorities). */
  readonly priorities: number[];
  /** Rows, keys or znodes the backend read to answer. */
  readonly itemsRead: number;
  /** Wall time of the scan, ms. */
  readonly ms: number;
  /** Earliest future deferral among runnable, unreserved transactions it saw (store clock). */
  readonly nextDeferralAt?: number;
  /** Set when the page was full: pass it as `after` to read the rest of the range. */
  readonly last?: string;
  /** With `last`: its priority, to pass as `afterPriority`. */
  readonly lastPriority?: number;
}

export interface TryReserveOptions {
  /**
   * Taken to run (engines): a SUBMITTED transaction becomes IN_PROGRESS with the
   * reservation, in one write, as the first step is about to run.
   */
  readonly start?: boolean;
}

export interface ReserveOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface ReservationEntry {
  readonly id: FateId;
  readonly reservation: Reservation;
}
