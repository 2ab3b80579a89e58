// Internals the package's own tests reach into (`@fate/store-zk/internal`): bucket names, the client.
// Not the public API: they change whenever the tree's layout does.

export { ZkClient } from './zk-client.js';
export { bucketsFor, MARKER_BUCKETS } from './zk-layout.js';
// the index upkeep, for the mutants of packages/store-zk/test/zk-index.mutants.ts
export { ZkReservationIndex } from './zk-reservation-index.js';
export { ZkRunnableIndex } from './zk-runnable-index.js';
