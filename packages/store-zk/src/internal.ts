// Internals the package's own tests reach into (`@fate/store-zk/internal`): bucket names, the client.
// Not the public API: they change whenever the tree's layout does.

export { ZkClient } from './zk-client.js';
export { bucketsFor, MARKER_BUCKETS } from './zk-layout.js';
