// Internals the package's own tests reach into (`@fate/store-redis/internal`): key names and
// hash slots. Not the public API: they change whenever the layout does.
export { type RedisKeys, redisKeys, type ShardKeys } from './redis-keys.js';
export { indexPrelude } from './redis-lua-fragments.js';
export { RedisScript } from './redis-script.js';
export { slotOfTag } from './redis-shards.js';

import { DELETE_AGED_OFF_SCRIPT } from './redis-age-off.js';
import { CLAIM_SCRIPT } from './redis-claims.js';
import { FINISH_CLAIM_SCRIPT } from './redis-finish-claims.js';
import { LIST_PAGE_SCRIPT } from './redis-list-page.js';
import { LIVENESS_SCRIPTS } from './redis-liveness.js';
import { LAYOUT_SCRIPT } from './redis-migrations.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import { SCAN_SCRIPT } from './redis-scan.js';

/** Every script the store runs (the Lua mutants of its tests rewrite their source). */
export const REDIS_SCRIPTS = [
  ...Object.values(RECORD_SCRIPTS),
  CLAIM_SCRIPT,
  FINISH_CLAIM_SCRIPT,
  SCAN_SCRIPT,
  DELETE_AGED_OFF_SCRIPT,
  LIST_PAGE_SCRIPT,
  ...Object.values(LIVENESS_SCRIPTS),
  LAYOUT_SCRIPT,
] as const;
