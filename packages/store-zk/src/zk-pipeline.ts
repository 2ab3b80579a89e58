import { mapLimit } from '@fate/core';

/**
 * Requests kept in flight at once by scans, listings and repairs. ZooKeeper answers one
 * session's requests in the order they were sent, so a window of requests costs about one
 * round trip instead of one each.
 */
export const PIPELINE_DEPTH = 64;

/** `mapLimit`, named for what it does here: requests pipelined on one session. */
export const pipelined = mapLimit;
