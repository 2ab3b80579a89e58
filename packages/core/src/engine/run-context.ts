import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StepRegistry } from '../step.js';
import type { ChildScope } from './child-scope.js';
import type { Lease } from './lease.js';
import type { FateMetrics } from './metrics.js';
import type { ResolvedFateOptions } from './options.js';
import type { RetryHost } from './step-retry.js';
import { stepChannel, traced } from './tracing.js';

/** What the runner needs from its engine. */
export interface RunnerContext<Env> {
  readonly env: Env;
  readonly steps: StepRegistry<Env>;
  /** Given to the engine's own child steps as the runner rebuilds them. */
  readonly children?: ChildScope;
  readonly idempotencyCheck: boolean;
  /** True once shutdown began: stop between steps, never fail because of it. */
  stopping(): boolean;
  /** False when this instance's own liveness lease ran out: start nothing more. */
  leaseValid(): boolean;
  /** The store's clock (deferrals are judged by it). */
  storeNow(): number;
  /** Runs one step call or undo (traced and measured by the engine). */
  runStep<T>(
    tx: { readonly id: FateId; readonly priority: number },
    type: string,
    phase: 'call' | 'undo',
    fn: () => Promise<T> | T,
  ): Promise<T>;
  warn(message: string, id: FateId, error?: unknown): void;
  /** Retry policies, reports of retries and overdue calls, per transaction. */
  retries(id: FateId): RetryHost;
}

/**
 * How a run ended for this instance: a final status; `deferred` (given back to wait);
 * `released` (given back untouched: not runnable, a stale scan); `halted` (given back
 * unfinished because this instance is stopping, its lease lapsed or the run's signal was
 * aborted: it runs again, wherever it is taken next).
 */
export type RunOutcome = Status | 'deferred' | 'released' | 'halted';

/** A step gave up because its signal was aborted: not a failure of the transaction. */
export class Interrupted extends Error {}

/** True for the error a run ends with when its signal stopped a step. */
export function isInterrupted(err: unknown): boolean {
  return err instanceof Interrupted;
}

/** The engine's hooks for its runs: steps traced and measured, retries and warnings reported. */
export function runnerContext<Env>(
  o: ResolvedFateOptions<Env>,
  lease: Lease,
  stopping: () => boolean,
  metrics: FateMetrics,
  children?: ChildScope,
): RunnerContext<Env> {
  const instanceId = o.store.instanceId;
  return {
    env: o.env,
    steps: o.steps,
    ...(children ? { children } : {}),
    idempotencyCheck: o.idempotencyCheck,
    stopping,
    leaseValid: () => lease.valid,
    storeNow: () => o.store.now(),
    runStep: async ({ id, priority }, type, phase, fn) => {
      if (phase === 'call') o.onEvent('step', { id, type });
      metrics.stepStarted(type, priority);
      const started = performance.now();
      let ok = false;
      try {
        const value = await traced(stepChannel, { id, type, phase, instanceId }, fn);
        ok = true;
        return value;
      } finally {
        metrics.stepCompleted(type, (performance.now() - started) / 1_000, ok);
      }
    },
    warn: (message, id, error) => o.onEvent('warning', { message, id, error }),
    retries: (id) => ({
      opPolicy: (op) => (op === undefined ? undefined : o.retry.get(op)),
      retried: (type, attempt, deferMs, error) => {
        metrics.retried(type);
        o.onEvent('retry', { id, type, attempt, deferMs, error });
      },
      warn: (message, error) => o.onEvent('warning', { message, id, error }),
      overdue: (type, message) => {
        metrics.overdue(type);
        o.onEvent('warning', { message, id, error: undefined });
      },
    }),
  };
}
