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
export async function retryUnknown<T>(call: () => Promise<T>, onRetry?: () => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const pause = PAUSES_MS[attempt];
      if (pause === undefined || !isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) throw err;
      onRetry?.();
      await sleep(pause);
    }
  }
}
