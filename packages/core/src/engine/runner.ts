import { FateError, FateErrorCode } from '../errors.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';
import type { Repo, StepRegistry } from '../step.js';
import type { FateStore, TxChange } from '../store/fate-store.js';
import type { TxError } from '../store/types.js';

/** What the runner needs from its engine. */
export interface RunnerContext<Env> {
  readonly env: Env;
  readonly steps: StepRegistry<Env>;
  readonly idempotencyCheck: boolean;
  /** True once shutdown began: stop between steps, never fail because of it. */
  stopping(): boolean;
  stepStarted(id: FateId, type: string): void;
}

/** How a run ended for this instance. */
export type RunOutcome = Status | 'deferred' | 'released';

export function toTxError(err: unknown): TxError {
  if (err instanceof Error) {
    return { message: err.message, name: err.name, ...(err.stack ? { stack: err.stack } : {}) };
  }
  return { message: String(err) };
}

/**
 * Runs one reserved transaction as far as it can go now (DESIGN.md §3): undo a failed
 * one newest-first; otherwise `isReady` → `call` → push the next step while ready; then
 * record the outcome. Every path ends the reservation (unreserve or delete).
 */
export async function runTransaction<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
): Promise<RunOutcome> {
  const status = await fate.getStatus();
  if (status === Status.FAILED_IN_PROGRESS) return undoAll(ctx, fate);
  if (status !== Status.SUBMITTED && status !== Status.IN_PROGRESS) {
    await fate.unreserve(); // stale scan: finished or not yet submitted
    return 'released';
  }
  const waitMs = fate.deferUntil - Date.now();
  if (waitMs > 0) {
    // a scan that raced the deferral named it: keep the deferral
    await fate.unreserve(waitMs);
    return 'deferred';
  }
  let current = status;
  let repo: Repo<Env>;
  try {
    repo = await topRepo(ctx, fate);
  } catch (err) {
    return fail(ctx, fate, err);
  }
  for (;;) {
    let next: Repo<Env> | undefined;
    try {
      const wait = await repo.isReady(fate.id, ctx.env);
      if (wait > 0) {
        await fate.unreserve(wait);
        return 'deferred';
      }
      if (current === Status.SUBMITTED) {
        await fate.setStatus(Status.IN_PROGRESS);
        current = Status.IN_PROGRESS;
      }
      ctx.stepStarted(fate.id, repo.type);
      next = await repo.call(fate.id, ctx.env);
      if (ctx.idempotencyCheck) {
        // as if the process died after call: the step is found again and re-run
        await repo.isReady(fate.id, ctx.env);
        ctx.stepStarted(fate.id, repo.type);
        next = await repo.call(fate.id, ctx.env);
      }
    } catch (err) {
      if (isStoreFault(err)) throw err;
      return fail(ctx, fate, err);
    }
    if (!next) return succeed(fate, repo);
    try {
      await fate.push(ctx.steps.serialize(next));
    } catch (err) {
      if (isStoreFault(err)) throw err;
      return fail(ctx, fate, err);
    }
    repo = next;
    if (ctx.stopping()) {
      await fate.unreserve();
      return 'released';
    }
  }
}

async function topRepo<Env>(ctx: RunnerContext<Env>, fate: FateStore): Promise<Repo<Env>> {
  const top = await fate.top();
  if (!top) throw new FateError(FateErrorCode.STACK_EMPTY, `${fate.id} has no step to run`);
  return ctx.steps.deserialize(top);
}

async function succeed<Env>(fate: FateStore, repo: Repo<Env>): Promise<RunOutcome> {
  const value = repo.returnValue?.();
  const changes: TxChange[] = [{ op: 'setStatus', status: Status.SUCCESSFUL }];
  if (value !== undefined) changes.unshift({ op: 'setInfo', key: 'returnValue', value });
  changes.push((await fate.getInfo('autoClean')) ? { op: 'delete' } : { op: 'unreserve' });
  await fate.commit(changes);
  return Status.SUCCESSFUL;
}

/** Records the error and rolls back at once. */
async function fail<Env>(
  ctx: RunnerContext<Env>,
  fate: FateStore,
  err: unknown,
): Promise<RunOutcome> {
  const failed: TxChange = { op: 'setStatus', status: Status.FAILED_IN_PROGRESS };
  try {
    await fate.commit([{ op: 'setInfo', key: 'error', value: toTxError(err) }, failed]);
  } catch (recordErr) {
    // unreadable stored info must not keep the transaction from rolling back
    if (!(recordErr instanceof FateError && recordErr.code === FateErrorCode.CORRUPT_DATA))
      throw recordErr;
    await fate.commit([failed]);
  }
  return undoAll(ctx, fate);
}

/**
 * Undoes every step newest-first, popping each. An `undo` that throws (or a step that
 * cannot be rebuilt) is recorded and the rollback goes on. Ends FAILED.
 */
async function undoAll<Env>(ctx: RunnerContext<Env>, fate: FateStore): Promise<RunOutcome> {
  let stack: readonly unknown[] = [];
  try {
    stack = await fate.getStack();
  } catch (err) {
    // a stack that cannot be read cannot be undone: record why and end the transaction
    await recordUndoError(fate, err);
  }
  for (let depth = stack.length; depth > 0; depth--) {
    try {
      await (await topRepo(ctx, fate)).undo(fate.id, ctx.env);
    } catch (err) {
      if (isStoreFault(err)) throw err;
      await recordUndoError(fate, err);
    }
    if (depth > 1) await fate.pop();
    else return finishFailed(fate, [{ op: 'pop' }]);
  }
  return finishFailed(fate, []);
}

async function finishFailed(fate: FateStore, before: TxChange[]): Promise<RunOutcome> {
  const autoClean = await fate.getInfo('autoClean').catch(() => false);
  await fate.commit([
    ...before,
    { op: 'setStatus', status: Status.FAILED },
    autoClean ? { op: 'delete' } : { op: 'unreserve' },
  ]);
  return Status.FAILED;
}

async function recordUndoError(fate: FateStore, err: unknown): Promise<void> {
  let error: TxError | undefined;
  try {
    error = await fate.getInfo('error');
  } catch {
    error = undefined; // unreadable info: start a fresh record
  }
  const base = error ?? { message: 'rolled back' };
  await fate.setInfo('error', {
    ...base,
    undoErrors: [...(base.undoErrors ?? []), toTxError(err)],
  });
}

/**
 * A failure of the store or of our hold on the transaction, not of the transaction: it must
 * never fail the transaction. The worker gives it up; it runs again once released.
 */
export function isStoreFault(err: unknown): boolean {
  return (
    err instanceof FateError &&
    (err.code === FateErrorCode.NOT_RESERVED ||
      err.code === FateErrorCode.CLOSED ||
      err.code === FateErrorCode.STORE_UNAVAILABLE)
  );
}
