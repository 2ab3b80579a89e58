import type { StoreBackend } from '../contract/backend.js';
import type { FatesStore } from '../contract/fates-store.js';
import type { StoreOptions } from '../contract/options.js';
import { FateError, FateErrorCode } from '../errors.js';
import { createFatesStore } from '../guard/create-fates-store.js';
import { MemoryBackend } from '../memory/memory-backend.js';
import { redactStoreUrl } from './redact-url.js';

/** The default store: an embedded SQLite file in the working directory. */
export const DEFAULT_STORE_URL = 'sqlite:./fate.db';

/** How `openStore` opens a store, besides the client's options. */
export interface OpenOptions {
  /**
   * `false`: open an existing store only — no SQLite file, PostgreSQL schema or ZooKeeper
   * tree is made, and a store that is not there is `FATE_STORE_CONFIG` ("no such store").
   * Admin tools open this way, so a typo in a URL is never taken for an empty store.
   * Default `true` (engines create their store).
   */
  readonly create?: boolean;
}

/**
 * What a backend package exports so `openStore` can load it by URL scheme:
 * `createStoreBackend(url, options)` returns an unopened backend for the URL.
 */
export interface StoreModule {
  createStoreBackend(url: string, options?: OpenOptions): StoreBackend;
}

/** URL scheme → backend package. */
const PACKAGES: Record<string, string> = {
  sqlite: '@fate/store-sqlite',
  redis: '@fate/store-redis',
  rediss: '@fate/store-redis',
  'redis+cluster': '@fate/store-redis',
  zk: '@fate/store-zk',
  postgres: '@fate/store-postgres',
  postgresql: '@fate/store-postgres',
};

/**
 * Opens a store by URL: `sqlite:<path>` (default `sqlite:./fate.db`), `memory:[name]`,
 * `redis://…`, `rediss://…`, `zk://host:port[,…]/chroot`. An unknown scheme, or a
 * backend package that is not installed, is one `FateError` that names the fix.
 *
 * @example
 * const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
 */
export async function openStore(
  url: string = DEFAULT_STORE_URL,
  options?: StoreOptions & OpenOptions,
): Promise<FatesStore> {
  const { create, ...client } = options ?? {};
  return createFatesStore(await backendForUrl(url, create === undefined ? {} : { create }), client);
}

/** The unopened backend for a URL (what `openStore` wraps). */
export async function backendForUrl(url: string, options?: OpenOptions): Promise<StoreBackend> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url ?? '')?.[1]?.toLowerCase();
  if (!scheme) {
    throw new FateError(
      FateErrorCode.BAD_URL,
      `not a store URL: ${JSON.stringify(redactStoreUrl(url))} (try sqlite:./fate.db, memory:, redis://host:6379 or zk://host:2181/fate)`,
    );
  }
  // a memory store lives in this process only: there is nothing to find or create
  if (scheme === 'memory') return new MemoryBackend(url.slice('memory:'.length) || undefined);
  const pkg = PACKAGES[scheme];
  if (!pkg) {
    throw new FateError(
      FateErrorCode.BAD_URL,
      `unknown store scheme "${scheme}:" (known: memory, ${Object.keys(PACKAGES).join(', ')})`,
    );
  }
  let mod: Partial<StoreModule>;
  try {
    mod = (await import(pkg)) as Partial<StoreModule>;
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new FateError(
        FateErrorCode.BACKEND_NOT_INSTALLED,
        `the ${scheme}: store needs ${pkg}; install it with: npm install ${pkg}`,
        { cause },
      );
    }
    throw cause;
  }
  if (typeof mod.createStoreBackend !== 'function') {
    throw new FateError(
      FateErrorCode.BACKEND_NOT_INSTALLED,
      `${pkg} does not export createStoreBackend`,
    );
  }
  return mod.createStoreBackend(url, options);
}
