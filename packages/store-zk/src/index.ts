export { ZkBackend } from './zk-backend.js';
export {
  DEFAULT_CHROOT,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_JUTE_MAX_BUFFER,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  parseZkUrl,
  type ResolvedZkConfig,
  resolveZkConfig,
  type ZkConfig,
} from './zk-config.js';
export { createStoreBackend, createZkBackend, createZkStore } from './zk-store.js';
