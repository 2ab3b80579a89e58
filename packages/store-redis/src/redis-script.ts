import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * One Lua script, loaded once per connection (SCRIPT LOAD) and then called by SHA, so a
 * call sends the arguments, not the source. When the server has lost its script cache
 * (SCRIPT FLUSH, restart, failover) the call answers NOSCRIPT: the script is loaded
 * again and the call repeated once. NOSCRIPT means nothing ran, so the repeat is safe.
 */
export class RedisScript {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;

  constructor(name: string, lua: string) {
    this.name = name;
    this.lua = lua;
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /** Loads the script; a syntax error shows up here, at open, not at first use. */
  async load(redis: Redis): Promise<void> {
    const sha = await redis.script('LOAD', this.lua);
    if (sha !== this.sha)
      throw new Error(`script ${this.name} loaded as ${String(sha)}, expected ${this.sha}`);
  }

  async run(
    redis: Redis,
    keys: readonly string[],
    args: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
      await this.load(redis);
      return redis.evalsha(this.sha, keys.length, ...keys, ...args);
    }
  }
}
