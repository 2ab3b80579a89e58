// Internals the package's own tests reach into (`@fate/store-zk/internal`): bucket names.
// Not the public API: they change whenever the tree's layout does.
export { bucketsFor, MARKER_BUCKETS } from './zk-layout.js';
