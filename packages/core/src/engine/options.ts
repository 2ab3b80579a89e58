import type { MeterProvider } from '@opentelemetry/api';
import type { FatesStore } from '../contract/fates-store.js';
import { invalidArgument } from '../errors.js';
import { DEFAULT_RETENTION_MS } from '../guard/age-off.js';
import {
  checkPartition,
  hashPartitionScanner,
  type PartitionData,
  type PartitionScanner,
  rangePartitionScanner,
} from '../partition.js';
import { StepRegistry, type StepType } from '../step.js';
import type { FateEvents } from './events.js';
import { type FateLogger, stderrLogger } from './logger.js';
import { checkLimits, type OpLimit } from './op-limits.js';
import { type PoolOptions, Pools } from './pools.js';
import { type ResolvedRetryPolicy, type RetryPolicy, resolveOpRetries } from './retry-policy.js';

/**
 * Where an instance's partition comes from: a fixed share, a supplier asked before every
 * scan (it may change at run time), or `'membership'`: this instance's index among the
 * live engines registered in the store, sorted by lock id, of their count.
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
  /** Concurrent transactions in this instance, in one pool for every op. Default 4. */
  readonly workers?: number;
  /**
   * Named pools of workers per set of op names, instead of `workers`, so long operations
   * never starve short ones: `[{ name: 'slow', ops: ['migrate'], workers: 2 }, { name:
   * 'default', workers: 8 }]`. Every op maps to exactly one pool; the pool without `ops` is
   * the catch-all.
   */
  readonly pools?: readonly PoolOptions[];
  /** With `pools` and no catch-all: this engine runs only the ops its pools name. */
  readonly onlyPooledOps?: boolean;
  /** Warn when a pool has had every worker busy and its queue full this long, ms. Default 60,000. */
  readonly poolSaturationWarnMs?: number;
  /** Default `'membership'`. */
  readonly partitions?: PartitionSource;
  /** How the work finder reads its partition. Default `'range'`. */
  readonly scanner?: 'range' | 'hash' | PartitionScanner;
  /** Finder backoff when it finds nothing, ms: starts at `min`, grows ×1.5 + min, capped at `max`. Default 25 / 1,000. */
  readonly finderBackoff?: { readonly minMs?: number; readonly maxMs?: number };
  /**
   * Liveness heartbeat period, ms. Default: a quarter of the store's liveness timeout; at
   * most a third of it (a late beat or two must not make this instance look dead).
   */
  readonly heartbeatMs?: number;
  /** How often each engine clears dead holders' reservations in its share, ms. Default: the heartbeat. */
  readonly deadReservationCheckMs?: number;
  /**
   * How often the engine releases reservations stored under its own lock id that none of
   * its workers holds (left by lost replies), ms. Default: five liveness timeouts.
   */
  readonly reconcileMs?: number;
  /**
   * Test mode: every step runs as `call`, `isReady`, `call`, as it would after a crash
   * right after `call`. Idempotent steps must still give the right result.
   */
  readonly idempotencyCheck?: boolean;
  /**
   * Finish and claim next: where the store claims with the finishing write (`batchedFinish`)
   * and this engine claims its work (one pool for every op, range partitions), the write
   * that ends each run also claims the next transaction for that worker. Default false: in
   * the one A/B so far (SQLite, a loaded machine) it cost more CPU per transaction than the
   * finder's batched claims. Finishing writes claim from the top of the partition, under
   * the priorities' starvation rule: a run that begins while the finder reads and hands
   * out a page of its sweep claims nothing when it ends, so the workers take the page's ids.
   */
  readonly claimOnFinish?: boolean;
  /** Receives the engine's events (scans, finished transactions, partitions, warnings). */
  readonly onEvent?: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  /** Where warnings and errors go (pino's interface). Default: stderr, one line each. */
  readonly logger?: FateLogger;
  /** Where metrics go (OpenTelemetry). Default: the global provider, a no-op unless set. */
  readonly meterProvider?: MeterProvider;
  /**
   * Age-off: finished transactions are deleted this long after they finished (store clock),
   * unless seeded with their own `retainMs`. Default 7 days.
   */
  readonly retentionMs?: number;
  /** How often the first engine sweeps for transactions to age off, ms. Default 10 minutes. */
  readonly ageOffCheckMs?: number;
  /** Retry policies by op name, for steps that declare none of their own (`Repo.retry`). */
  readonly retry?: Readonly<Record<string, RetryPolicy>>;
  /**
   * Cluster-wide limits per op name, enforced through the store: at most `concurrency`
   * running at once and/or `perSecond` starts, across every engine. Give every engine the
   * same limits.
   */
  readonly limits?: Readonly<Record<string, OpLimit>>;
}

export interface ResolvedFateOptions<Env> {
  readonly store: FatesStore;
  readonly env: Env;
  readonly steps: StepRegistry<Env>;
  readonly workers: number;
  readonly pools: Pools;
  readonly poolSaturationWarnMs: number;
  readonly partitions: PartitionSource;
  readonly scanner: PartitionScanner;
  readonly backoffMinMs: number;
  readonly claimOnFinish: boolean;
  readonly backoffMaxMs: number;
  readonly heartbeatMs: number;
  readonly deadReservationCheckMs: number;
  readonly reconcileMs: number;
  readonly idempotencyCheck: boolean;
  readonly onEvent: NonNullable<FateOptions<Env>['onEvent']>;
  readonly logger: FateLogger;
  readonly meterProvider: MeterProvider | undefined;
  readonly retentionMs: number;
  readonly ageOffCheckMs: number;
  readonly retry: ReadonlyMap<string, ResolvedRetryPolicy>;
  readonly limits: ReturnType<typeof checkLimits>;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0)
    throw invalidArgument(`${name} must be a positive integer, got ${v}`);
  return v;
}

function nonNegativeInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw invalidArgument(`${name} must be an integer >= 0`);
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
  const timeoutMs = o.store.livenessTimeoutMs;
  const heartbeatMs = positiveInt('heartbeatMs', o.heartbeatMs, Math.floor(timeoutMs / 4));
  if (heartbeatMs > timeoutMs / 3) {
    throw invalidArgument(
      `heartbeatMs (${heartbeatMs}) must be at most a third of the store's livenessTimeoutMs (${timeoutMs})`,
    );
  }
  if (o.pools !== undefined && o.workers !== undefined) {
    throw invalidArgument('give workers per pool in pools, or workers without pools, not both');
  }
  const workers = positiveInt('workers', o.workers, 4);
  const pools = new Pools(o.pools ?? [{ name: 'default', workers }], o.onlyPooledOps === true);
  const logger = o.logger ?? stderrLogger;
  for (const level of ['error', 'warn', 'info', 'debug'] as const) {
    if (typeof logger[level] !== 'function')
      throw invalidArgument(`logger.${level} must be a function`);
  }
  return Object.freeze({
    store: o.store,
    env: o.env,
    steps,
    workers: pools.all.reduce((n, p) => n + p.workers, 0),
    pools,
    poolSaturationWarnMs: positiveInt('poolSaturationWarnMs', o.poolSaturationWarnMs, 60_000),
    partitions,
    scanner,
    backoffMinMs,
    backoffMaxMs,
    claimOnFinish: o.claimOnFinish === true,
    heartbeatMs,
    deadReservationCheckMs: positiveInt(
      'deadReservationCheckMs',
      o.deadReservationCheckMs,
      heartbeatMs,
    ),
    reconcileMs: positiveInt('reconcileMs', o.reconcileMs, 5 * timeoutMs),
    idempotencyCheck: o.idempotencyCheck === true,
    onEvent: o.onEvent ?? (() => undefined),
    logger,
    meterProvider: o.meterProvider,
    retentionMs: nonNegativeInt('retentionMs', o.retentionMs, DEFAULT_RETENTION_MS),
    ageOffCheckMs: positiveInt('ageOffCheckMs', o.ageOffCheckMs, 10 * 60_000),
    retry: resolveOpRetries(o.retry),
    limits: checkLimits(o.limits),
  });
}
