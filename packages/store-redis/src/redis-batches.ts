import { TickBatch } from '@fate/core';
import type { ShardKeys } from './redis-keys.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import type { RedisClient, RedisScript } from './redis-script.js';

/** One call of a record script: its record's id, KEYS (hash, runnable set) and ARGV. */
export interface RecordCall {
  readonly id: string;
  readonly keys: readonly [string, string];
  readonly args: readonly string[];
}

/** A call's reply, or the error its part of a batch raised (that call's alone). */
export type RecordReply = unknown;

/**
 * The finishing writes and reservations of one tick, one script call per shard and kind
 * (issue 23; `TickBatch`, `batchOf` in `redis-record-scripts.ts`): Redis runs a script's
 * machinery once for the batch, where each call alone pays it (about two thirds of a
 * reservation's 25 µs of Redis time), and the engine sends and parses one command. Each
 * call keeps its own fence and answer; one that raises an error inside the script fails
 * alone. A batch is one script, so a lost reply leaves each caller to ask again, as alone;
 * a failure of the whole call (the connection, the server) fails each call of the batch.
 */
export class RedisBatches {
  readonly #client: () => RedisClient;
  readonly #writes = new Map<string, TickBatch<RecordCall, RecordReply>>();
  readonly #reserves = new Map<string, TickBatch<RecordCall, RecordReply>>();

  /** `client`: the open connection (throws when there is none). */
  constructor(client: () => RedisClient) {
    this.#client = client;
  }

  /** A fenced write's reply (1 applied, 0 fenced off); rejects with its own error. */
  write(shard: ShardKeys, call: RecordCall): Promise<RecordReply> {
    return this.#batch(this.#writes, shard, RECORD_SCRIPTS.write, RECORD_SCRIPTS.writeMany)
      .submit(call)
      .then(ownError);
  }

  /** A reservation's reply ('absent', 'held' or the record's fields); rejects likewise. */
  tryReserve(shard: ShardKeys, call: RecordCall): Promise<RecordReply> {
    return this.#batch(
      this.#reserves,
      shard,
      RECORD_SCRIPTS.tryReserve,
      RECORD_SCRIPTS.tryReserveMany,
    )
      .submit(call)
      .then(ownError);
  }

  /** Resolves once no batch waits or runs (before the connection is closed). */
  async drain(): Promise<void> {
    await Promise.all([...this.#writes.values(), ...this.#reserves.values()].map((b) => b.drain()));
  }

  #batch(
    batches: Map<string, TickBatch<RecordCall, RecordReply>>,
    shard: ShardKeys,
    one: RedisScript,
    many: RedisScript,
  ): TickBatch<RecordCall, RecordReply> {
    let batch = batches.get(shard.runnable);
    if (!batch) {
      batch = new TickBatch<RecordCall, RecordReply>({
        key: (call) => call.id,
        one: (call) => one.run(this.#client(), call),
        many: async (calls) => {
          const [first] = calls as [RecordCall];
          const keys = [...first.keys, ...calls.slice(1).map((c) => c.keys[0])];
          const args = [String(first.args.length), ...calls.flatMap((c) => c.args)];
          const replies = await many.run(this.#client(), { keys, args });
          if (!Array.isArray(replies) || replies.length !== calls.length) {
            throw new Error(`${many.name} answered ${String(replies)} to ${calls.length} calls`);
          }
          return replies.map(callError);
        },
      });
      batches.set(shard.runnable, batch);
    }
    return batch;
  }
}

/** A batch's answer for one call that raised an error: `[nil, message]`, as that error. */
function callError(reply: unknown): unknown {
  if (Array.isArray(reply) && reply.length === 2 && reply[0] === null) {
    return new Error(String(reply[1]));
  }
  return reply;
}

function ownError(reply: unknown): unknown {
  if (reply instanceof Error) throw reply;
  return reply;
}
