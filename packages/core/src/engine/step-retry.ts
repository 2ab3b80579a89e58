import type { FateStore } from '../contract/fate-store.js';
import type { TxError, TxRetry } from '../contract/types.js';
import { FateErrorCode, isFateError } from '../errors.js';
import type { Repo } from '../step.js';
import { backoffMs, type ResolvedRetryPolicy, resolveRetryPolicy } from './retry-policy.js';
import { toTxError } from './tx-error.js';

/** Errors kept in `info.retry.errors`, and the length of each message. */
const KEPT_ERRORS = 5;
const KEPT_MESSAGE = 500;

/** Mistakes a retry cannot fix: the transaction fails at once whatever the policy says. */
const NEVER_RETRIED = new Set<string>([
  FateErrorCode.INVALID_ARGUMENT,
  FateErrorCode.UNKNOWN_STEP,
  FateErrorCode.STACK_OVERFLOW,
  FateErrorCode.PAYLOAD_TOO_LARGE,
  FateErrorCode.CORRUPT_DATA,
]);

/** What retries and step timeouts need from the engine, for one transaction. */
export interface RetryHost {
  /** The engine's policy for an op (`FateOptions.retry`), if any. */
  opPolicy(opName: string | undefined): ResolvedRetryPolicy | undefined;
  /** Reports a retry (event and metric). */
  retried(type: string, attempt: number, deferMs: number, error: unknown): void;
  warn(message: string, error?: unknown): void;
  /** Reports a call still running after its timeout (warning and metric). */
  overdue(type: string, message: string): void;
}

const resolved = new WeakMap<object, ResolvedRetryPolicy>();

/**
 * After a `call` of `repo`, the top step, failed with `err`: when its policy (the step's
 * own, else its op's) retries the error and attempts are left, records the failed attempt
 * in `info.retry` and releases the transaction deferred by the backoff, in one fenced write
 * (the deferral is the store's), and answers true. The count goes on across engines and
 * crashes: it is read back from the transaction. Otherwise records the final count (when
 * a policy applied) and answers false: the caller fails the transaction.
 */
export async function retryLater(
  host: RetryHost,
  fate: FateStore,
  repo: Repo<never>,
  err: unknown,
): Promise<boolean> {
  const policy = policyFor(host, repo, await fate.getInfo('opName'));
  if (!policy) return false;
  const depth = (await fate.getStack()).length;
  const before = await fate.getInfo('retry');
  const same = before && before.depth === depth && before.type === repo.type;
  const attempts = (same ? before.attempts : 0) + 1;
  const retry: TxRetry = {
    depth,
    type: repo.type,
    attempts,
    maxAttempts: policy.attempts,
    errors: [...(same ? before.errors : []), brief(err)].slice(-KEPT_ERRORS),
  };
  const code = (err as { code?: unknown } | undefined)?.code;
  if (attempts >= policy.attempts || NEVER_RETRIED.has(String(code)) || !policy.retryable(err)) {
    await fate.setInfo('retry', retry).catch((e) => noRoom(host, e));
    return false;
  }
  const deferMs = backoffMs(policy, attempts);
  try {
    await fate.commit([
      { op: 'setInfo', key: 'retry', value: retry },
      { op: 'unreserve', deferMs },
    ]);
  } catch (e) {
    noRoom(host, e);
    return false; // no room for the count: failed, never retried uncounted
  }
  host.retried(repo.type, attempts, deferMs, err);
  return true;
}

/** A record with no room for the count is failed without it; any other error goes on up. */
function noRoom(host: RetryHost, err: unknown): void {
  if (!isFateError(err, FateErrorCode.PAYLOAD_TOO_LARGE)) throw err;
  host.warn('the retry count cannot be stored (record too large)', err);
}

function policyFor(
  host: RetryHost,
  repo: Repo<never>,
  opName: string | undefined,
): ResolvedRetryPolicy | undefined {
  const own = repo.retry;
  if (own === undefined) return host.opPolicy(opName);
  let policy = resolved.get(own);
  if (!policy) {
    try {
      policy = resolveRetryPolicy(own, `retry of step ${repo.type}`);
    } catch (mistake) {
      host.warn('the step declares a retry policy that is not valid; it is not retried', mistake);
      return undefined;
    }
    resolved.set(own, policy);
  }
  return policy;
}

/** An error as the retry history keeps it: short, without stacks or causes. */
function brief(err: unknown): TxError {
  const { message, name, code } = toTxError(err);
  const cut = message.length > KEPT_MESSAGE ? `${message.slice(0, KEPT_MESSAGE)}…` : message;
  return { message: cut, ...(name ? { name } : {}), ...(code ? { code } : {}) };
}
