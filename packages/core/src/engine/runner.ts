import { FateError, FateErrorCode } from '../errors.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';
import type { Repo, StepContext, StepRegistry } from '../step.js';
import { checkJson } from '../store/codec.js';
import type { FateStore, TxChange } from '../store/fate-store.js';
import { checkNextStep, readyWait } from './step-checks.js';
import { type RetryHost, retryLater } from './step-retry.js';
import { callWithin } from './step-timeout.js';
import { isStoreFault } from './store-fault.js';
import { toTxError } from './tx-error.js';
import { recordUndoError } from './undo-errors.js';

export { isStoreFault, toTxError };

/** What the runner needs from its engine. */
export interface RunnerContext<Env> {
  readonly env: Env;
  readonly steps: StepRegistry<Env>;
  readonly idempotencyCheck: boolean;
  /** True once shutdown began: stop between steps, never fail because of it. */
  stopping(): boolean;
  /** False when this instance's own liveness lease ran out: start nothing more. */
  leaseValid(): boolean;
  /** The store's clock (deferrals are judged by it). */
  storeNow(): number;
  /** Runs one step call or undo (traced and measured by the engine). */
  runStep<T>(
    id: FateId,
    type: string,
    phase: 'call' | 'undo',
    fn: () => Promise<T> | T,
  ): Promise<T>;
  warn(message: string, id: FateId, error?: unknown): void;
  /** Retry policies, reports of retries and overdue calls, per transaction. */
  retries(id: FateId): RetryHost;
}

/** How a run ended for this instance. */
export type RunOutcome = Status | 'deferred' | 'released';

/** A step gave up because its signal was aborted: not a failure of the transaction. */
class Interrupted extends Error {}

/**
 * Runs one reserved transaction as far as it can go now (DESIGN.md §3): undo a failed
 * one newest-first; otherwise `isReady` → `call` → push the next step while ready; then
 * record the outcome. Every path ends the reservation (unreserve or delete), except a
 * store fault, which the caller handles (it releases, or leaves it to be cleared).
 */
export async function runTransaction<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const status = await fate.getStatus();
  if (status === Status.FAILED_IN_PROGRESS) return undoAll(ctx, fate, signal);
  if (status !== Status.SUBMITTED && status !== Status.IN_PROGRESS) {
    await fate.unreserve(); // stale scan: finished or not yet submitted
    return 'released';
  }
  // Whether this run moved it from SUBMITTED (by reserving it to start, or by writing
  // IN_PROGRESS below) and has begun no call since: then nothing of it has ever run, and a
  // release gives it back as SUBMITTED, so it can still be cancelled or deleted.
  let startedHere = fate.startedNow;
  let begun = false;
  const release = async (deferMs = 0) => {
    if (startedHere && !begun) {
      await fate.commit([
        { op: 'setStatus', status: Status.SUBMITTED },
        { op: 'unreserve', deferMs },
      ]);
    } else {
      await fate.unreserve(deferMs);
    }
  };
  const halted = () => ctx.stopping() || !ctx.leaseValid() || signal.aborted;
  const deferredFor = fate.deferUntil - ctx.storeNow();
  if (deferredFor > 0) {
    // a scan that raced the deferral named it: keep the deferral
    await release(deferredFor);
    return 'deferred';
  }
  const stepContext: StepContext = { signal };
  const host = ctx.retries(fate.id);
  let current = status;
  // The top step's call has certainly never begun: nothing of the transaction ran yet, or
  // this run pushed the step and has not called it. Only then does a failure of its
  // `isReady` leave it out of the rollback.
  let topFresh = startedHere || status === Status.SUBMITTED;
  let repo: Repo<Env>;
  try {
    repo = await topRepo(ctx, fate);
  } catch (err) {
    return fail(ctx, fate, err, signal, false);
  }
  for (;;) {
    if (halted()) {
      await release();
      return 'released';
    }
    let next: Repo<Env> | undefined;
    let calling = false;
    try {
      const wait = readyWait(await repo.isReady(fate.id, ctx.env, stepContext), repo, (m) =>
        ctx.warn(m, fate.id),
      );
      if (wait > 0) {
        await release(wait);
        return 'deferred';
      }
      if (current === Status.SUBMITTED) {
        await fate.setStatus(Status.IN_PROGRESS);
        current = Status.IN_PROGRESS;
        startedHere = true;
      }
      // `isReady` (or the write) may have taken long: the lease may have lapsed meanwhile
      // and another engine cleared and taken the transaction, or shutdown began. Judged
      // again here, with nothing awaited between this check and the call.
      if (halted()) {
        await release();
        return 'released';
      }
      calling = true;
      begun = true;
      topFresh = false;
      const call = () => callWithin(repo, signal, (c) => repo.call(fate.id, ctx.env, c), host);
      next = checkNextStep(await ctx.runStep(fate.id, repo.type, 'call', call), repo);
      if (ctx.idempotencyCheck) {
        // as if the process died after call: the step is found again and re-run
        await repo.isReady(fate.id, ctx.env, stepContext);
        if (halted()) {
          await release(); // judged again after the awaited isReady, as before the first call
          return 'released';
        }
        next = checkNextStep(await ctx.runStep(fate.id, repo.type, 'call', call), repo);
      }
    } catch (err) {
      if (isStoreFault(err)) throw err;
      if (signal.aborted && !calling) {
        await release(); // stopped before its call began: given back as the checks above do
        return 'released';
      }
      if (signal.aborted) throw new Interrupted('the step was interrupted', { cause: err });
      if (calling && (await retryLater(host, fate, repo, err))) return 'deferred';
      return fail(ctx, fate, err, signal, !calling && topFresh);
    }
    if (!next) return succeed(ctx, fate, repo, signal);
    try {
      await fate.push(ctx.steps.serialize(next));
    } catch (err) {
      if (isStoreFault(err)) throw err;
      return fail(ctx, fate, err, signal, false);
    }
    repo = next;
    topFresh = true;
  }
}

/** True for the error a run ends with when its signal stopped a step. */
export function isInterrupted(err: unknown): boolean {
  return err instanceof Interrupted;
}

async function topRepo<Env>(ctx: RunnerContext<Env>, fate: FateStore): Promise<Repo<Env>> {
  const top = await fate.top();
  if (!top) throw new FateError(FateErrorCode.STACK_EMPTY, `${fate.id} has no step to run`);
  return ctx.steps.deserialize(top);
}

/**
 * Records the return value and SUCCESSFUL in one commit. A return value that cannot be
 * stored (it throws, is not JSON, is too large) fails the transaction like any step error:
 * leaving it runnable would run the last step again and again.
 */
async function succeed<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  repo: Repo<Env>,
  signal: AbortSignal,
): Promise<RunOutcome> {
  try {
    const value = repo.returnValue?.();
    if (value !== undefined) checkJson(`return value of step ${repo.type}`, value);
    const changes: TxChange[] = [{ op: 'setStatus', status: Status.SUCCESSFUL }];
    if (value !== undefined) changes.unshift({ op: 'setInfo', key: 'returnValue', value });
    changes.push(...(await finish(ctx, fate)));
    await fate.commit(changes);
  } catch (err) {
    if (isStoreFault(err)) throw err;
    return fail(ctx, fate, err, signal, false);
  }
  return Status.SUCCESSFUL;
}

/**
 * Records the error and rolls back at once. `dropTop`: the top step's call never began
 * (its `isReady` threw before it ever ran), so it is popped without being undone.
 */
async function fail<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  err: unknown,
  signal: AbortSignal,
  dropTop: boolean,
): Promise<RunOutcome> {
  const failed: TxChange[] = [
    { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
    ...(dropTop ? [{ op: 'pop' } as const] : []),
  ];
  try {
    await fate.commit([{ op: 'setInfo', key: 'error', value: toTxError(err) }, ...failed]);
  } catch (recordErr) {
    // The error cannot be stored (unreadable info, no room): roll back all the same.
    if (isStoreFault(recordErr)) throw recordErr;
    ctx.warn('the error could not be recorded; rolling back without it', fate.id, recordErr);
    await fate.commit(failed);
  }
  return undoAll(ctx, fate, signal);
}

/**
 * Undoes every step newest-first, popping each. An `undo` that throws (or a step that
 * cannot be rebuilt) is recorded and the rollback goes on. Ends FAILED.
 */
async function undoAll<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  signal: AbortSignal,
): Promise<RunOutcome> {
  let stack: readonly unknown[] = [];
  try {
    stack = await fate.getStack();
  } catch (err) {
    if (isStoreFault(err)) throw err;
    // a stack that cannot be read cannot be undone: record why and end the transaction
    await recordUndoError(fate, err);
  }
  for (let depth = stack.length; depth > 0; depth--) {
    if (ctx.stopping() || !ctx.leaseValid() || signal.aborted) {
      await fate.unreserve(); // the rollback goes on wherever it is picked up next
      return 'released';
    }
    try {
      const repo = await topRepo(ctx, fate);
      await ctx.runStep(fate.id, repo.type, 'undo', () => repo.undo(fate.id, ctx.env, { signal }));
    } catch (err) {
      if (isStoreFault(err)) throw err;
      if (signal.aborted) throw new Interrupted('the undo was interrupted', { cause: err });
      await recordUndoError(fate, err);
    }
    if (depth > 1) await fate.pop();
    else return finishFailed(ctx, fate, [{ op: 'pop' }]);
  }
  return finishFailed(ctx, fate, []);
}

async function finishFailed<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  before: TxChange[],
): Promise<RunOutcome> {
  const end = await finish(ctx, fate).catch((): TxChange[] => [{ op: 'unreserve' }]);
  await fate.commit([...before, { op: 'setStatus', status: Status.FAILED }, ...end]);
  return Status.FAILED;
}

/** How a finished transaction ends: deleted (auto-clean), or kept with its age-off stamp. */
async function finish<Env>(ctx: RunnerContext<Env>, fate: FateStore): Promise<TxChange[]> {
  if (await fate.getInfo('autoClean')) return [{ op: 'delete' }];
  return [{ op: 'setInfo', key: 'ageOff', value: ctx.storeNow() }, { op: 'unreserve' }];
}
