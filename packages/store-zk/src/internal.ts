// Internals the package's own tests reach into (`@fate/store-zk/internal`): bucket names, the client.
// Not the public API: they change whenever the tree's layout does.

// the index upkeep, for the mutants of packages/store-zk/test/zk-index.mutants.ts and the
// unit cases of zk-markers.test.ts
export { ZkBatchMarkers } from './zk-batch-markers.js';
export { ZkClient } from './zk-client.js';
export { bucketsFor, MARKER_BUCKETS } from './zk-layout.js';
export { touchMarker } from './zk-markers.js';
export { ZkReservationIndex } from './zk-reservation-index.js';
export { ZkRunnableIndex } from './zk-runnable-index.js';
