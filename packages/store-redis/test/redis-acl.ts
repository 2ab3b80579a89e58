import { randomBytes } from 'node:crypto';

/**
 * The commands a Redis store sends, and nothing else: its Lua scripts' commands (checked
 * by the ACL inside scripts too), the scripts' loading and calls, the reads outside
 * scripts, wake-ups (PUBLISH/SUBSCRIBE), the server clock, and what ioredis sends at
 * connect (INFO for its ready check, SELECT; on a Cluster CLUSTER SLOTS, CLUSTER INFO and
 * CLIENT SETNAME for its subscriber connection). The README's
 * least-privilege rule is this list.
 */
export const STORE_COMMANDS = [
  'ping',
  'info',
  'select',
  'time',
  'eval',
  'evalsha',
  'script|load',
  'exists',
  'get',
  'set',
  'del',
  'hget',
  'hgetall',
  'hmget',
  'hset',
  'hdel',
  'hincrby',
  'sadd',
  'srem',
  'sunion',
  'zadd',
  'zrem',
  'zscore',
  'zrange',
  'zrangebylex',
  'zrangebyscore',
  'zremrangebylex',
  'zremrangebyscore',
  'publish',
  'subscribe',
  'unsubscribe',
  'cluster|slots',
  'cluster|info',
  'client|setname',
] as const;

/**
 * `ACL SETUSER` arguments for a user with exactly a store's rights: its keys
 * (`{prefix}…` and the shard tags `{prefix#…}`), its wake-up channel, its commands.
 */
export function storeUserRules(prefix: string, password: string): string[] {
  return [
    'reset',
    'on',
    `>${password}`,
    `~{${prefix}}*`,
    `~{${prefix}#*`,
    `&{${prefix}}:wakeup`,
    '-@all',
    ...STORE_COMMANDS.map((c) => `+${c}`),
  ];
}

/** A fresh user name and password for `prefix`. */
export function storeUser(prefix: string): { user: string; password: string } {
  return { user: `fate-${prefix}`, password: randomBytes(12).toString('hex') };
}
