import type { FateStore } from '../contract/fate-store.js';
import { Status } from '../status.js';
import type { Repo, StepContext } from '../step.js';
import { bindScope } from './child-scope.js';
import { Interrupted, type RunnerContext, type RunOutcome } from './run-context.js';
import { fail, succeed, topRepo, undoAll } from './run-endings.js';
import { checkNextStep, readyWait } from './step-checks.js';
import { retryLater } from './step-retry.js';
import { callWithin } from './step-timeout.js';
import { isStoreFault } from './store-fault.js';
import { toTxError } from './tx-error.js';

export { isInterrupted, type RunnerContext, type RunOutcome } from './run-context.js';
export { isStoreFault, toTxError };

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
      return 'halted';
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
        return 'halted';
      }
      calling = true;
      begun = true;
      const call = () => callWithin(repo, signal, (c) => repo.call(fate.id, ctx.env, c), host);
      next = checkNextStep(await ctx.runStep(fate, repo.type, 'call', call), repo);
      if (ctx.idempotencyCheck) {
        // as if the process died after call: the step is found again and re-run
        await repo.isReady(fate.id, ctx.env, stepContext);
        if (halted()) {
          await release(); // judged again after the awaited isReady, as before the first call
          return 'halted';
        }
        next = checkNextStep(await ctx.runStep(fate, repo.type, 'call', call), repo);
      }
    } catch (err) {
      if (isStoreFault(err)) throw err;
      if (signal.aborted && !calling) {
        await release(); // stopped before its call began: given back as the checks above do
        return 'halted';
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
    bindScope(repo, ctx.children); // a step awaitChildren built in the call runs next
    topFresh = true;
  }
}
