import type { SeedRequest } from '../contract/types.js';
import { invalidArgument } from '../errors.js';

/** The longest a seed may be deferred, ms (ten years): longer is taken for a unit mistake. */
export const MAX_SEED_DEFER_MS = 10 * 365 * 24 * 60 * 60_000;

/**
 * The deferral a seed request asks for, ms from the insert by the store's clock: `delayMs`
 * as given (rounded up: a deferral ends no earlier than asked), or `runAt` minus `now`, this
 * client's estimate of the store's clock (a time already past is 0, runnable at once).
 * Both given, or either not a finite number (a negative delay, a `Date` that is invalid,
 * more than `MAX_SEED_DEFER_MS`), is `FATE_INVALID_ARGUMENT`.
 */
export function seedDeferMs(request: SeedRequest, now: number): number {
  const { delayMs, runAt } = request;
  if (delayMs !== undefined && runAt !== undefined) {
    throw invalidArgument('a seed takes delayMs or runAt, not both');
  }
  let ms = 0;
  if (delayMs !== undefined) {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
      throw invalidArgument(`delayMs must be a finite number >= 0, got ${String(delayMs)}`);
    }
    ms = delayMs;
  } else if (runAt !== undefined) {
    const at = runAt instanceof Date ? runAt.getTime() : runAt;
    if (typeof at !== 'number' || !Number.isFinite(at)) {
      throw invalidArgument('runAt must be epoch ms (a finite number) or a valid Date');
    }
    ms = Math.max(0, at - now);
  }
  if (ms > MAX_SEED_DEFER_MS) {
    throw invalidArgument(`a seed may be deferred at most ${MAX_SEED_DEFER_MS} ms, got ${ms}`);
  }
  return Math.ceil(ms);
}
