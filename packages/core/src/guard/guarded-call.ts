import type { StoreBackend } from '../contract/backend.js';
import { FateError, FateErrorCode } from '../errors.js';
import type { BackendCaller } from './backend-caller.js';
import { type Retried, retryTelling, retryUnknown } from './retry.js';

/** A backend error as the guard reports it: unknown errors become `FATE_STORE_UNAVAILABLE`. */
export function toFateError(err: unknown, what: string): Error {
  if (err instanceof FateError || err instanceof TypeError || err instanceof RangeError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new FateError(FateErrorCode.STORE_UNAVAILABLE, `${what}: ${detail}`, { cause: err });
}

/** The guard's one way to call its backend: refused once closed, errors mapped. */
export class GuardedCall implements BackendCaller {
  readonly #backend: StoreBackend;
  #closed = false;

  constructor(backend: StoreBackend) {
    this.#backend = backend;
  }

  /** Every later call fails with `FATE_CLOSED`. */
  close(): void {
    this.#closed = true;
  }

  async call<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new FateError(FateErrorCode.CLOSED, `${what}: the store is closed`);
    }
    try {
      return await fn(this.#backend);
    } catch (err) {
      throw toFateError(err, `${what} failed`);
    }
  }

  /** `call`, asked again with the same arguments while the reply is lost. */
  retried<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T> {
    return retryUnknown(() => this.call(what, fn));
  }

  retriedTelling<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Retried<T> {
    return retryTelling(() => this.call(what, fn));
  }
}
