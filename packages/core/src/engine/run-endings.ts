import type { FateStore, TxChange } from '../contract/fate-store.js';
import { FateError, FateErrorCode } from '../errors.js';
import { checkJson } from '../guard/codec.js';
import { Status } from '../status.js';
import type { Repo } from '../step.js';
import { bindScope } from './child-scope.js';
import { Interrupted, type RunnerContext, type RunOutcome } from './run-context.js';
import { isStoreFault } from './store-fault.js';
import { toTxError } from './tx-error.js';
import { recordUndoError } from './undo-errors.js';

/**
 * How a run ends: success recorded in one commit, or the error recorded and every step
 * undone newest-first; either way with the finished transaction's clean-up or age-off stamp.
 */

export async function topRepo<Env>(ctx: RunnerContext<Env>, fate: FateStore): Promise<Repo<Env>> {
  const top = await fate.top();
  if (!top) throw new FateError(FateErrorCode.STACK_EMPTY, `${fate.id} has no step to run`);
  const repo = ctx.steps.deserialize(top);
  bindScope(repo, ctx.children);
  return repo;
}

/**
 * Records the return value and SUCCESSFUL in one commit. A return value that cannot be
 * stored (it throws, is not JSON, is too large) fails the transaction like any step error:
 * leaving it runnable would run the last step again and again.
 */
export async function succeed<Env>(
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
export async function fail<Env>(
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
export async function undoAll<Env>(
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
      return 'halted';
    }
    try {
      const repo = await topRepo(ctx, fate);
      await ctx.runStep(fate, repo.type, 'undo', () => repo.undo(fate.id, ctx.env, { signal }));
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
