import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A standalone connection or a Cluster client: the commands a store sends work on both. */
export type RedisClient = Redis | Cluster;

/** One script call: its KEYS and ARGV. */
export interface ScriptCall {
  readonly keys: readonly string[];
  readonly args: ReadonlyArray<string | number | Buffer>;
}

function isNoScript(err: unknown): boolean {
  return String((err as Error | undefined)?.message).startsWith('NOSCRIPT');
}

/**
 * One Lua script, loaded at open (SCRIPT LOAD) and then called by SHA, so a call sends the
 * arguments, not the source. When the server has lost its script cache (SCRIPT FLUSH,
 * restart, a promoted replica) the call answers NOSCRIPT, which means nothing ran: it is
 * sent again once as EVAL with the source, which also caches it on the node that ran it
 * (on a Cluster, that is the node owning the keys, which a bare SCRIPT LOAD may not reach).
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

  /** Loads the script on one node; a syntax error shows up here, at open, not at first use. */
  async load(redis: Redis): Promise<void> {
    const sha = await redis.script('LOAD', this.lua);
    if (sha !== this.sha)
      throw new Error(`script ${this.name} loaded as ${String(sha)}, expected ${this.sha}`);
  }

  async run(redis: RedisClient, call: ScriptCall): Promise<unknown> {
    const { keys, args } = call;
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }

  /**
   * Many calls in one pipeline (one round trip); on a Cluster every call must touch the
   * same slot. One reply per call, in order; a call that fails fails the whole batch.
   */
  async runMany(redis: RedisClient, calls: readonly ScriptCall[]): Promise<unknown[]> {
    const pipeline = redis.pipeline();
    for (const { keys, args } of calls) pipeline.evalsha(this.sha, keys.length, ...keys, ...args);
    const replies = (await pipeline.exec()) ?? [];
    return Promise.all(
      calls.map(async (call, i) => {
        const [err, reply] = replies[i] ?? [new Error(`no reply to ${this.name}`), undefined];
        if (!err) return reply;
        if (isNoScript(err)) return this.run(redis, call);
        throw err;
      }),
    );
  }
}
