import type { StoreBackend } from '../contract/backend.js';
import type { FatesStore } from '../contract/fates-store.js';
import { resolveStoreOptions, type StoreOptions } from '../contract/options.js';
import { toFateError } from './guarded-call.js';
import { GuardedFatesStore } from './guarded-fates-store.js';

/**
 * Opens `backend` and wraps it in the runtime guard every backend shares: argument
 * validation, data encoding, preconditions, liveness judgement, retries of lost replies,
 * open-once / close-once and error mapping.
 */
export async function createFatesStore(
  backend: StoreBackend,
  options?: StoreOptions,
): Promise<FatesStore> {
  const resolved = resolveStoreOptions(options);
  try {
    await backend.open();
  } catch (cause) {
    throw toFateError(cause, 'opening the store failed');
  }
  return new GuardedFatesStore(backend, resolved);
}
