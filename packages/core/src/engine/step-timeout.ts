import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import type { Repo, StepContext } from '../step.js';

/** After its timeout, a call that has not settled within this long is reported, ms. */
export const OVERDUE_GRACE_MS = 1_000;
/** The longest `timeoutMs` a step may declare, ms (a day). */
export const MAX_STEP_TIMEOUT_MS = 24 * 60 * 60_000;

/**
 * Runs one call of `repo` under its `timeoutMs` (none: as is). When the time passes, the
 * call's signal is aborted and, once the call settled (returned or threw, however late),
 * the attempt fails with `FATE_STEP_TIMEOUT` (what the call threw is its cause) — even a
 * call that returned after its timeout. Nothing here lets go of the call early: the runner
 * awaits it, keeping the reservation, so a call that ignores its signal never runs beside a
 * second one of the same transaction from this engine; it is reported once
 * (`report.overdue`) when still running `OVERDUE_GRACE_MS` after its timeout. `signal`
 * (shutdown, a lapsed lease) aborts the call's signal too, and is then no timeout.
 */
export async function callWithin<T>(
  repo: Repo<never>,
  signal: AbortSignal,
  run: (context: StepContext) => Promise<T> | T,
  report: { overdue(type: string, message: string): void },
): Promise<T> {
  const timeoutMs = stepTimeoutMs(repo);
  if (timeoutMs === undefined) return run({ signal });
  const controller = new AbortController();
  const follow = () => controller.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  let timedOut = false;
  let late: ReturnType<typeof setTimeout> | undefined;
  const timer = setTimeout(() => {
    if (controller.signal.aborted) return;
    timedOut = true;
    controller.abort(timeoutError(repo, timeoutMs));
    late = setTimeout(
      () =>
        report.overdue(
          repo.type,
          `step ${repo.type} ignores its signal: still running ${OVERDUE_GRACE_MS} ms after its ${timeoutMs} ms timeout; the transaction waits for it`,
        ),
      OVERDUE_GRACE_MS,
    );
  }, timeoutMs);
  let value: T;
  try {
    value = await run({ signal: controller.signal });
  } catch (err) {
    if (timedOut) throw timeoutError(repo, timeoutMs, err);
    throw err;
  } finally {
    clearTimeout(timer);
    clearTimeout(late);
    signal.removeEventListener('abort', follow);
  }
  // returned, but late: a timeout all the same, with no cause (it threw nothing)
  if (timedOut) throw timeoutError(repo, timeoutMs);
  return value;
}

/** A step's `timeoutMs`, checked: a positive number of ms up to a day, or none. */
export function stepTimeoutMs(repo: Repo<never>): number | undefined {
  const ms = repo.timeoutMs;
  if (ms === undefined) return undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_STEP_TIMEOUT_MS) {
    throw invalidArgument(
      `timeoutMs of step ${repo.type} must be a number of ms from 1 to ${MAX_STEP_TIMEOUT_MS}, got ${String(ms)}`,
    );
  }
  return ms;
}

function timeoutError(repo: Repo<never>, ms: number, cause?: unknown): FateError {
  return new FateError(
    FateErrorCode.STEP_TIMEOUT,
    `step ${repo.type} ran past its timeout of ${ms} ms`,
    cause === undefined ? undefined : { cause },
  );
}
