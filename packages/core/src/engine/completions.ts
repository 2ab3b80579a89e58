import type { FatesStore } from '../contract/fates-store.js';
import type { FateView } from '../contract/types.js';
import { FateError, FateErrorCode } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';
import { FINISHED_STATUSES, Status } from '../status.js';
import type { FateResult, WaitOptions } from './fate-types.js';

/** How often the shared poller reads the awaited transactions, ms: from quick to patient. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;
/** Reads in flight at once when many transactions are awaited. */
const READS_AT_ONCE = 32;

interface Waiter {
  readonly resolve: (result: FateResult) => void;
  readonly reject: (err: Error) => void;
}

/**
 * `waitForCompletion` for every caller of one engine: one shared poller reads the awaited
 * transactions (not a timer per waiter), and a transaction this engine finishes itself
 * resolves its waiters at once (`finished`).
 */
export class Completions {
  readonly #store: FatesStore;
  readonly #waiters = new Map<FateId, Set<Waiter>>();
  #polling = false;
  #pause = FIRST_POLL_MS;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: FatesStore) {
    this.#store = store;
  }

  async wait(id: FateId, options: WaitOptions = {}): Promise<FateResult> {
    parseFateId(id);
    const view = await this.#store.read(id);
    if (isDone(view)) return result(view);
    if (options.signal?.aborted) throw aborted(id);
    return new Promise<FateResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => settle(() => reject(aborted(id)));
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#remove(id, waiter);
        fn();
      };
      const waiter: Waiter = {
        resolve: (r) => settle(() => resolve(r)),
        reject: (e) => settle(() => reject(e)),
      };
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          settle(() =>
            reject(
              new FateError(
                FateErrorCode.TIMEOUT,
                `${id} did not finish in ${options.timeoutMs} ms (${view.status})`,
              ),
            ),
          );
        }, options.timeoutMs);
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const set = this.#waiters.get(id) ?? new Set();
      set.add(waiter);
      this.#waiters.set(id, set);
      this.#pause = FIRST_POLL_MS;
      this.#schedule();
    });
  }

  /** This engine finished `id`: its waiters learn it now, not at the next poll. */
  finished(id: FateId): void {
    if (this.#waiters.has(id)) void this.#check([id]);
  }

  #remove(id: FateId, waiter: Waiter): void {
    const set = this.#waiters.get(id);
    set?.delete(waiter);
    if (set?.size === 0) this.#waiters.delete(id);
  }

  #schedule(): void {
    if (this.#polling || this.#timer || this.#waiters.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, this.#pause);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    try {
      await this.#check([...this.#waiters.keys()]);
    } finally {
      this.#polling = false;
      this.#pause = Math.min(this.#pause * 2, MAX_POLL_MS);
      this.#schedule();
    }
  }

  async #check(ids: FateId[]): Promise<void> {
    for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
      await Promise.all(
        ids.slice(i, i + READS_AT_ONCE).map(async (id) => {
          let view: FateView;
          try {
            view = await this.#store.read(id);
          } catch (err) {
            if (err instanceof FateError && err.code === FateErrorCode.STORE_UNAVAILABLE) return;
            for (const w of [...(this.#waiters.get(id) ?? [])]) w.reject(err as Error);
            return;
          }
          if (!isDone(view)) return;
          for (const w of [...(this.#waiters.get(id) ?? [])]) w.resolve(result(view));
        }),
      );
    }
  }
}

function isDone(view: FateView): boolean {
  return FINISHED_STATUSES.has(view.status) || view.status === Status.UNKNOWN;
}

function aborted(id: FateId): FateError {
  return new FateError(FateErrorCode.ABORTED, `waiting for ${id} was aborted`);
}

function result(view: FateView): FateResult {
  return {
    id: view.id,
    status: view.status,
    ...(view.info.returnValue !== undefined ? { returnValue: view.info.returnValue } : {}),
    ...(view.info.error !== undefined ? { error: view.info.error } : {}),
  };
}
