import { invalidArgument } from '../errors.js';

/** An error class a policy retries (`instanceof`). */
// biome-ignore lint/suspicious/noExplicitAny: any constructor of an Error, whatever its arguments
export type ErrorClass = abstract new (...args: any[]) => Error;

/**
 * How a step's failed `call` is tried again (`Repo.retry`, or `FateOptions.retry` per op).
 * An attempt is one `call`; one that throws an error `retryOn` accepts (or runs past the
 * step's `timeoutMs`) is tried again after a backoff, stored as a deferral of the
 * transaction (the store's clock), until `attempts` calls have failed: only then does the
 * transaction fail and roll back. The count is stored with the transaction, so whichever
 * engine takes it next goes on counting.
 *
 * The wait before attempt n + 1 is `min(maxBackoffMs, backoffMs × factor^(n−1))`, less a
 * random share of up to `jitter` of it.
 */
export interface RetryPolicy {
  /** Calls in all, the first included (1 = no retry). At most 1,000. */
  readonly attempts: number;
  /** The wait after the first failure, ms. Default 1,000. */
  readonly backoffMs?: number;
  /** Each wait is this many times the one before. Default 2. */
  readonly factor?: number;
  /** No wait is longer, ms. Default 5 minutes; at most a day. */
  readonly maxBackoffMs?: number;
  /** Up to this share of each wait is taken off at random (0–1). Default 0.5. */
  readonly jitter?: number;
  /**
   * Which errors are retried: these classes (`instanceof`), or those the predicate accepts.
   * Default: every error `call` throws, its timeout included. Any other error fails the
   * transaction at once.
   */
  readonly retryOn?: readonly ErrorClass[] | ((error: unknown) => boolean);
}

/** A policy checked, with its defaults. */
export interface ResolvedRetryPolicy {
  readonly attempts: number;
  readonly backoffMs: number;
  readonly factor: number;
  readonly maxBackoffMs: number;
  readonly jitter: number;
  readonly retryable: (error: unknown) => boolean;
}

const MAX_ATTEMPTS = 1_000;
const MAX_BACKOFF_MS = 24 * 60 * 60_000;

/** Checks a policy (a programmer mistake is `FATE_INVALID_ARGUMENT`) and fills its defaults. */
export function resolveRetryPolicy(p: RetryPolicy, where: string): ResolvedRetryPolicy {
  if (typeof p !== 'object' || p === null) throw invalidArgument(`${where}: not a retry policy`);
  const num = (name: string, v: number | undefined, dflt: number, min: number, max: number) => {
    const value = v ?? dflt;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      throw invalidArgument(`${where}: ${name} must be a number from ${min} to ${max}`);
    }
    return value;
  };
  const attempts = num('attempts', p.attempts, Number.NaN, 1, MAX_ATTEMPTS);
  if (!Number.isInteger(attempts)) throw invalidArgument(`${where}: attempts must be an integer`);
  const maxBackoffMs = num('maxBackoffMs', p.maxBackoffMs, 5 * 60_000, 0, MAX_BACKOFF_MS);
  return Object.freeze({
    attempts,
    backoffMs: num('backoffMs', p.backoffMs, 1_000, 0, MAX_BACKOFF_MS),
    factor: num('factor', p.factor, 2, 1, 100),
    maxBackoffMs,
    jitter: num('jitter', p.jitter, 0.5, 0, 1),
    retryable: retryPredicate(p.retryOn, where),
  });
}

function retryPredicate(
  retryOn: RetryPolicy['retryOn'],
  where: string,
): (error: unknown) => boolean {
  if (retryOn === undefined) return () => true;
  if (typeof retryOn === 'function') {
    return (error) => {
      try {
        return retryOn(error) === true;
      } catch {
        return false; // a predicate that throws retries nothing
      }
    };
  }
  if (!Array.isArray(retryOn) || !retryOn.every((c) => typeof c === 'function')) {
    throw invalidArgument(`${where}: retryOn is a predicate or an array of error classes`);
  }
  const classes = [...retryOn];
  return (error) => classes.some((c) => error instanceof c);
}

/** The wait before the attempt after `failed` failed ones (1 = after the first), ms. */
export function backoffMs(
  policy: ResolvedRetryPolicy,
  failed: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(policy.maxBackoffMs, policy.backoffMs * policy.factor ** (failed - 1));
  return Math.ceil(full * (1 - policy.jitter * random()));
}

/** `FateOptions.retry`: a policy per op name, each checked. */
export function resolveOpRetries(
  byOp: Readonly<Record<string, RetryPolicy>> | undefined,
): ReadonlyMap<string, ResolvedRetryPolicy> {
  if (byOp === undefined) return new Map();
  if (typeof byOp !== 'object' || byOp === null || Array.isArray(byOp)) {
    throw invalidArgument('retry is an object of retry policies by op name');
  }
  return new Map(
    Object.entries(byOp).map(([op, p]) => [op, resolveRetryPolicy(p, `retry of op ${op}`)]),
  );
}
