import {
  createFatesStore,
  type FatesStore,
  openStore,
  type StoreModule,
  type StoreOptions,
} from '@fate/core';

/**
 * Opens a store in a child process: through `openStore(url)`, or through the backend
 * module a fixture names (for backends `openStore` does not know).
 */
export async function openChildStore(
  url: string,
  backendModule: string | undefined,
  options?: StoreOptions,
): Promise<FatesStore> {
  if (!backendModule) return openStore(url, options);
  const mod = (await import(backendModule)) as StoreModule;
  return createFatesStore(mod.createStoreBackend(url), options);
}
