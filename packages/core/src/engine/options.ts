import { invalidArgument } from '../errors.js';
import {
  checkPartition,
  hashPartitionScanner,
  type PartitionData,
  type PartitionScanner,
  rangePartitionScanner,
} from '../partition.js';
import { StepRegistry, type StepType } from '../step.js';
import type { FatesStore } from '../store/fates-store.js';
import type { FateEvents } from './events.js';

/**
 * Where an instance's partition comes from: a fixed share, a supplier asked before every
 * scan (it may change at run time), or `'membership'`: this instance's index among the
 * live instances registered in the store, sorted by id, of their count.
 */
export type PartitionSource =
  | PartitionData
  | (() => PartitionData | Promise<PartitionData>)
  | 'membership';

export interface FateOptions<Env> {
  /** The shared store. The engine does not close it. */
  readonly store: FatesStore;
  /** Handed to every step. */
  readonly env: Env;
  /** The step types this instance can run. */
  readonly steps: StepRegistry<Env> | Iterable<StepType<Env>>;
  /** Concurrent transactions in this instance. Default 4. */
  readonly workers?: number;
  /** Default `'membership'`. */
  readonly partitions?: PartitionSource;
  /** How the work finder reads its partition. Default `'range'`. */
  readonly scanner?: 'range' | 'hash' | PartitionScanner;
  /** Finder backoff when it finds nothing, ms: starts at `min`, grows ×1.5 + min, capped at `max`. Default 25 / 1,000. */
  readonly finderBackoff?: { readonly minMs?: number; readonly maxMs?: number };
  /** Liveness heartbeat period, ms. Default: a third of the store's liveness timeout. */
  readonly heartbeatMs?: number;
  /** How often the leader clears reservations of dead instances, ms. Default 1,000. */
  readonly deadReservationCheckMs?: number;
  /**
   * Test mode: every step runs as `call`, `isReady`, `call`, as it would after a crash
   * right after `call`. Idempotent steps must still give the right result.
   */
  readonly idempotencyCheck?: boolean;
  /** Receives the engine's events (scans, finished transactions, partitions, warnings). */
  readonly onEvent?: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
}

export interface ResolvedFateOptions<Env> {
  readonly store: FatesStore;
  readonly env: Env;
  readonly steps: StepRegistry<Env>;
  readonly workers: number;
  readonly partitions: PartitionSource;
  readonly scanner: PartitionScanner;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  readonly heartbeatMs: number | undefined;
  readonly deadReservationCheckMs: number;
  readonly idempotencyCheck: boolean;
  readonly onEvent: NonNullable<FateOptions<Env>['onEvent']>;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0)
    throw invalidArgument(`${name} must be a positive integer, got ${v}`);
  return v;
}

export function resolveFateOptions<Env>(o: FateOptions<Env>): ResolvedFateOptions<Env> {
  if (!o?.store || typeof o.store.scanRunnable !== 'function')
    throw invalidArgument('Fate needs a store');
  const steps = o.steps instanceof StepRegistry ? o.steps : new StepRegistry<Env>(o.steps ?? []);
  const partitions = o.partitions ?? 'membership';
  if (typeof partitions === 'object') checkPartition(partitions);
  else if (partitions !== 'membership' && typeof partitions !== 'function') {
    throw invalidArgument('partitions is a PartitionData, a function or "membership"');
  }
  const scanner =
    o.scanner === undefined || o.scanner === 'range'
      ? rangePartitionScanner
      : o.scanner === 'hash'
        ? hashPartitionScanner
        : o.scanner;
  if (typeof scanner?.scan !== 'function')
    throw invalidArgument('scanner is "range", "hash" or a PartitionScanner');
  const backoffMinMs = positiveInt('finderBackoff.minMs', o.finderBackoff?.minMs, 25);
  const backoffMaxMs = positiveInt('finderBackoff.maxMs', o.finderBackoff?.maxMs, 1_000);
  if (backoffMaxMs < backoffMinMs) throw invalidArgument('finderBackoff.maxMs must be >= minMs');
  return Object.freeze({
    store: o.store,
    env: o.env,
    steps,
    workers: positiveInt('workers', o.workers, 4),
    partitions,
    scanner,
    backoffMinMs,
    backoffMaxMs,
    heartbeatMs:
      o.heartbeatMs === undefined ? undefined : positiveInt('heartbeatMs', o.heartbeatMs, 1),
    deadReservationCheckMs: positiveInt('deadReservationCheckMs', o.deadReservationCheckMs, 1_000),
    idempotencyCheck: o.idempotencyCheck === true,
    onEvent: o.onEvent ?? (() => undefined),
  });
}
