import type { FateId, FatesStore, StoreBackend, StoreOptions } from '@fate/core';

/**
 * One fresh, isolated data set (own file, key prefix or chroot) and the means to open
 * clients on it. The suites call `factory()` once per test, before it, and `destroy()`
 * after it.
 */
export interface StoreFixture {
  /**
   * A new, unopened backend on this fixture's data, as another process would have. The
   * suites open clients on it with `createFatesStore`, wrapping it in a fault-injecting
   * backend where a case needs one; call it again for a second client, or after `close()`
   * to reopen (durability).
   */
  backend(): StoreBackend;
  /** How to open a client when `createFatesStore(backend(), options)` is not it. */
  open?(options?: StoreOptions): Promise<FatesStore>;
  /**
   * Everything the backend still stores besides its fixed skeleton (schema, buckets,
   * scripts), one line per key, row or node, read behind the guard's back: the store-hygiene
   * case checks it is empty once every transaction is gone and every client's liveness
   * record expired.
   */
  leftovers(): Promise<string[]>;
  /** Writes bytes that do not decode into one stored field of `id`, behind the guard's back. */
  corrupt(id: FateId, field: 'status' | 'stack' | 'info'): Promise<void>;
  /** A URL `openStore` accepts for this data, so child processes can share it. */
  readonly url?: string;
  /**
   * For backends `openStore` does not know: a module specifier (resolvable from child
   * processes) exporting `createStoreBackend(url)`.
   */
  readonly backendModule?: string;
  /** Frees the data and anything the fixture started. */
  destroy(): Promise<void>;
}

/** What a backend author passes to the suites: `runConformance({ name, factory })`. */
export interface ConformanceTarget {
  readonly name: string;
  factory(): Promise<StoreFixture>;
}

/**
 * `factory` with its fixtures' `url` and `backendModule` dropped, so the cases that start
 * child processes skip: for Stryker's runs (docs/mutation.md), whose children would load
 * `dist/`, not the mutated sources.
 */
export function inProcessOnly(factory: () => Promise<StoreFixture>): () => Promise<StoreFixture> {
  return async () => {
    const { url: _url, backendModule: _module, ...fixture } = await factory();
    return fixture;
  };
}
