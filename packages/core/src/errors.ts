/**
 * Stable error codes. Tests and callers branch on `code`, never on messages.
 */
export const FateErrorCode = {
  /** The handle's reservation is gone: unreserved, deleted, or cleared as dead (fencing). */
  NOT_RESERVED: 'FATE_NOT_RESERVED',
  /** The operation is not allowed in the transaction's current status. */
  ILLEGAL_STATUS: 'FATE_ILLEGAL_STATUS',
  /** A push beyond the maximum stack depth. */
  STACK_OVERFLOW: 'FATE_STACK_OVERFLOW',
  /** A pop or top of an empty stack where a step is required. */
  STACK_EMPTY: 'FATE_STACK_EMPTY',
  /** The backing service cannot be reached or failed to answer in time. */
  STORE_UNAVAILABLE: 'FATE_STORE_UNAVAILABLE',
  /** A step or info value is larger than the backend's declared limit. */
  PAYLOAD_TOO_LARGE: 'FATE_PAYLOAD_TOO_LARGE',
  /** Stored data cannot be decoded. */
  CORRUPT_DATA: 'FATE_CORRUPT_DATA',
  /** A stored step names a type that is not in the step registry. */
  UNKNOWN_STEP: 'FATE_UNKNOWN_STEP',
  /** No such transaction. */
  NOT_FOUND: 'FATE_NOT_FOUND',
  /** The store (or engine) is closed, or not yet open. */
  CLOSED: 'FATE_CLOSED',
  /** A wait ran out of time. */
  TIMEOUT: 'FATE_TIMEOUT',
  /** A step's `call` ran past the step's `timeoutMs` (a failed attempt). */
  STEP_TIMEOUT: 'FATE_STEP_TIMEOUT',
  /** A child transaction did not succeed (`awaitChildren` without `continueOnFailure`). */
  CHILD_FAILED: 'FATE_CHILD_FAILED',
  /** A wait was aborted through its signal. */
  ABORTED: 'FATE_ABORTED',
  /** A store URL is malformed or names an unknown scheme. */
  BAD_URL: 'FATE_BAD_URL',
  /** The backend package for a URL scheme is not installed. */
  BACKEND_NOT_INSTALLED: 'FATE_BACKEND_NOT_INSTALLED',
  /** A programmer mistake: a bad argument. Thrown as a `TypeError` or `RangeError`. */
  INVALID_ARGUMENT: 'FATE_INVALID_ARGUMENT',
  /**
   * A write's outcome is unknown (the store did not answer, even when asked again): the
   * handle refuses further use until `refresh()` has read what the store holds.
   */
  OUTCOME_UNKNOWN: 'FATE_OUTCOME_UNKNOWN',
  /**
   * The store cannot be opened as configured (a path that is not a directory, no
   * permission, a database number the server does not have): not transient, fix the config.
   */
  STORE_CONFIG: 'FATE_STORE_CONFIG',
} as const;

export type FateErrorCode = (typeof FateErrorCode)[keyof typeof FateErrorCode];

/**
 * Marks every `FateError`, whichever copy of `@fate/core` made it. `Symbol.for` is global
 * to the process, so two installed copies (say a backend resolved its own) share the key.
 */
const FATE_ERROR_BRAND = Symbol.for('@fate/core.FateError');

/** Every operational failure of fate is a `FateError` with a stable `code`. */
export class FateError extends Error {
  /**
   * `instanceof FateError` checks the brand rather than the prototype chain, so an error
   * thrown by another copy of `@fate/core` is still recognised: otherwise the store guard
   * would re-wrap a backend's `FATE_PAYLOAD_TOO_LARGE` as a retryable `FATE_STORE_UNAVAILABLE`.
   * A subclass keeps the ordinary prototype check for itself.
   */
  static override [Symbol.hasInstance](value: unknown): value is FateError {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof
    if (this !== FateError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[FATE_ERROR_BRAND] === true
    );
  }

  readonly code: FateErrorCode;

  constructor(code: FateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FateError';
    this.code = code;
  }
}

// On the prototype, not on each instance: nothing to copy per error, and the brand stays
// out of an error's own keys (equality checks, spreads and logs look the same as before).
Object.defineProperty(FateError.prototype, FATE_ERROR_BRAND, { value: true });

/** True when `err` is a `FateError`, optionally with the given code. */
export function isFateError(err: unknown, code?: FateErrorCode): err is FateError {
  return err instanceof FateError && (code === undefined || err.code === code);
}

/** A programmer mistake: `TypeError` carrying `code: FATE_INVALID_ARGUMENT`. */
export function invalidArgument(message: string): TypeError & { code: string } {
  const err = new TypeError(message) as TypeError & { code: string };
  err.code = FateErrorCode.INVALID_ARGUMENT;
  return err;
}
