import { createFatesStore, type FatesStore, type OpenOptions, type StoreOptions } from '@fate/core';
import { ZkBackend } from './zk-backend.js';
import { parseZkUrl, resolveZkConfig, type ZkConfig } from './zk-config.js';

/**
 * Opens a fate store in ZooKeeper: all data lives under the chroot (created if missing),
 * and every client that opens the same ensemble and chroot shares the transactions.
 * Takes a config or a `zk://` URL.
 *
 * @example
 * const store = await createZkStore({ connect: 'zk1:2181,zk2:2181', chroot: '/app/fate' });
 * const { id } = await store.seed({ opName: 'compact', step: { type: 'Compact', state: {} } });
 */
export function createZkStore(
  config: ZkConfig | string,
  options?: StoreOptions,
): Promise<FatesStore> {
  return createFatesStore(createZkBackend(config), options);
}

/** The unopened backend for a config or `zk://` URL. */
export function createZkBackend(config: ZkConfig | string): ZkBackend {
  return new ZkBackend(resolveZkConfig(typeof config === 'string' ? parseZkUrl(config) : config));
}

/**
 * The unopened backend for `zk://host:port[,host:port…]/chroot[?sessionTimeout=ms]`, for
 * `openStore(url)`. A malformed URL is a `FateError` with code `FATE_BAD_URL`.
 *
 * @example
 * const store = await openStore('zk://127.0.0.1:2181/fate?sessionTimeout=10000');
 */
export function createStoreBackend(url: string, options?: OpenOptions): ZkBackend {
  return new ZkBackend(resolveZkConfig(parseZkUrl(url)), options);
}
