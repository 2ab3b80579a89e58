import type { StoreBackend } from '../contract/backend.js';
import type { Retried } from './retry.js';

/**
 * The one way the guard's parts call the backend (implemented by `GuardedCall`): refused
 * once the store is closed, backend errors mapped to `FATE_STORE_UNAVAILABLE`, and, for
 * operations that give the same answer when repeated, asked again while the reply is lost.
 * `what` names the operation in errors.
 */
export interface BackendCaller {
  /** One attempt. */
  call<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T>;
  /** Asked again with the same arguments while the reply is lost. */
  retried<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T>;
  /**
   * `retried`, telling whether it was asked again: then a "no" may be the repeat finding
   * what the first attempt did, and the caller reads back to decide.
   */
  retriedTelling<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Retried<T>;
}
