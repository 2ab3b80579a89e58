import { setTimeout as sleep } from 'node:timers/promises';
import { FateErrorCode, isFateError } from '../errors.js';

/**
 * Pauses before asking the store again about an operation whose reply was lost. Short:
 * a lost reply is usually one dropped packet or a reconnect; a store that stays away is
 * reported to the caller after about half a second instead of blocking it.
 */
const PAUSES_MS = [20, 100, 400] as const;

/**
 * Runs `call`, repeating it as it is while it fails with `FATE_STORE_UNAVAILABLE`: for
 * operations that give the same answer when repeated after they applied (the backend
 * contract promises this for insert, tryReserve, write and clearReservation). `onRetry`
 * runs before each repeat, so the caller knows a later answer may be the repeat's.
 */
export function retryUnknown<T>(call: () => Promise<T>, onRetry?: () => void): Promise<T> {
  // the usual answer comes first time: no loop, no extra await on that path
  return call().catch((err: unknown) => repeat(err, call, onRetry));
}

async function repeat<T>(first: unknown, call: () => Promise<T>, onRetry?: () => void): Promise<T> {
  let err = first;
  for (const pause of PAUSES_MS) {
    if (!isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) throw err;
    onRetry?.();
    await sleep(pause);
    try {
      return await call();
    } catch (next) {
      err = next;
    }
  }
  throw err;
}

/** A call asked again while its reply is lost, and whether it was. */
export interface Retried<T> {
  /** The answer: the repeat's, when it was asked again. */
  readonly answer: Promise<T>;
  /** Whether it was asked again after a lost reply (final once `answer` settled). */
  readonly repeated: boolean;
}

/**
 * `retryUnknown`, telling whether it repeated. The answer is `retryUnknown`'s own promise
 * (no extra step between the reply and the caller), so the order of events is the same
 * as for a plain retried call.
 */
export function retryTelling<T>(call: () => Promise<T>): Retried<T> {
  let repeated = false;
  const answer = retryUnknown(call, () => {
    repeated = true;
  });
  return {
    answer,
    get repeated() {
      return repeated;
    },
  };
}
