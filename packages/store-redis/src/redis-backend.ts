import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendScan,
  ClaimedRecord,
  FateId,
  IdRange,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  Reservation,
  ReservationFilter,
  Status,
  StoreBackend,
  StoreCapabilities,
  StoredRecord,
} from '@fate/core';
import { declareCapabilities, ServerClock } from '@fate/core';
import { redisAgeOffDue, redisCounts, redisListPage } from './redis-admin.js';
import { claimMany } from './redis-claims.js';
import { type RedisConfig, type RedisConfigInput, resolveRedisConfig } from './redis-config.js';
import { connect, connectCluster, disconnect } from './redis-connection.js';
import { unavailable } from './redis-errors.js';
import { type RedisKeys, recordScriptKeys, redisKeys, type ShardKeys } from './redis-keys.js';
import * as liveness from './redis-liveness.js';
import { openClient } from './redis-open.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import { listShard, RECORD_FIELDS, reservedRecord, toRecord } from './redis-records.js';
import { shardReservations } from './redis-reservations.js';
import { scanRunnable } from './redis-scan.js';
import type { RedisClient } from './redis-script.js';
import { RedisWakeups } from './redis-wakeups.js';

/**
 * A fate store backend on Redis (ioredis). Each transaction is a hash; every change of one
 * (record, reservation, indexes) is one Lua script, fenced in that script on the stored
 * reservation. Runnable work is a sorted set read by lex range, so a range partition
 * reads only its range. Deferrals are computed and judged by the server's clock.
 *
 * @example
 * const store = await createFatesStore(new RedisBackend('redis://127.0.0.1:6379?prefix=jobs'));
 */
export class RedisBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = declareCapabilities({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    wakeups: true,
    multiProcess: true,
  });
  /** The resolved, frozen configuration. */
  readonly config: RedisConfig;
  /** The names of this store's keys. */
  readonly keys: RedisKeys;
  #redis?: RedisClient;
  /**
   * First uuids of the last 1,000 claims sent (each call has fresh ones): a call with one
   * again is the guard's repeat after a lost reply, here or above this backend.
   */
  readonly #claimsSent = new Set<string>();
  readonly #clock = new ServerClock();
  readonly #wakeups: RedisWakeups;

  readonly #create: boolean;

  /** With `create: false` it opens an existing store only (see `OpenOptions`). */
  constructor(config: RedisConfigInput, options: { readonly create?: boolean } = {}) {
    this.#create = options.create !== false;
    this.config = resolveRedisConfig(config);
    this.keys = redisKeys(this.config.prefix, this.config.shards);
    const subscriber = () =>
      this.config.nodes ? connectCluster(this.config) : connect(this.config);
    this.#wakeups = new RedisWakeups(subscriber, this.keys.wakeup);
  }

  /**
   * The indexed queries, present once open on a store whose query indexes are complete
   * (created by a version that keeps them: `keys.queries` is set); else absent, and the
   * guard answers them by a full read.
   */
  ageOffDue?: (q: BackendAgeOffQuery) => Promise<Array<{ id: string; finishedAt: number }>>;
  counts?: () => Promise<BackendCount[]>;
  listPage?: (q: BackendListQuery) => Promise<BackendListPage>;

  async open(): Promise<void> {
    const redis = await openClient(this.config, this.keys, this.#clock, this.#create);
    this.#redis = redis;
    if ((await redis.get(this.keys.queries).catch(() => null)) !== '1') return;
    this.ageOffDue = (q) => this.#call('ageOffDue', (r) => redisAgeOffDue(r, this.keys, q));
    this.counts = () => this.#call('counts', (r) => redisCounts(r, this.keys));
    this.listPage = (q) =>
      this.#call('listPage', (r) => redisListPage(r, this.keys, q, this.#clock.now()));
  }

  async close(): Promise<void> {
    const redis = this.#redis;
    this.#redis = undefined;
    await Promise.all([this.#wakeups.close(), disconnect(redis)]);
  }

  now(): number {
    return this.#clock.now();
  }

  insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#call('insert', async (redis) => {
      const call = this.#insertCall(id, record);
      return (await RECORD_SCRIPTS.insert.run(redis, call)) === 1;
    });
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#call('insertMany', async (redis) => {
      // One pipeline per shard (a Cluster pipeline must stay in one slot), all at once.
      const byShard = new Map<ShardKeys, number[]>();
      records.forEach(({ id }, i) => {
        const shard = this.keys.shardOf(id);
        byShard.set(shard, [...(byShard.get(shard) ?? []), i]);
      });
      const out = new Array<boolean>(records.length).fill(false);
      await Promise.all(
        [...byShard.values()].map(async (indexes) => {
          const calls = indexes.map((i) => {
            const { id, record } = records[i] as { id: FateId; record: NewRecord };
            return this.#insertCall(id, record);
          });
          const replies = await RECORD_SCRIPTS.insert.runMany(redis, calls);
          indexes.forEach((i, j) => {
            out[i] = replies[j] === 1;
          });
        }),
      );
      return out;
    });
  }

  read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#call('read', async (redis) =>
      toRecord(await redis.hmget(this.keys.shardOf(id).tx(id), ...RECORD_FIELDS)),
    );
  }

  tryReserve(
    id: FateId,
    reservation: Reservation,
    start = false,
  ): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#call('tryReserve', async (redis) => {
      const { lockId, uuid } = reservation;
      const got = await RECORD_SCRIPTS.tryReserve.run(redis, {
        keys: recordScriptKeys(this.keys.shardOf(id), id),
        args: [id, lockId, uuid, start ? '1' : '0'],
      });
      if (got === 'absent' || got === 'held') return got;
      return reservedRecord(got as string[], { lockId, uuid });
    });
  }

  claimMany(
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<ClaimedRecord[]> {
    const first = reservations[0]?.uuid ?? '';
    // a call made again with the same reservations (the guard's repeat of a lost reply)
    const repeat = this.#claimsSent.has(first);
    this.#claimsSent.add(first);
    if (this.#claimsSent.size > 1_000)
      this.#claimsSent.delete(this.#claimsSent.values().next().value as string);
    return this.#call('claimMany', (redis) =>
      claimMany(redis, this.keys.shardsIn(range), range, reservations, repeat),
    );
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#call('write', async (redis) => {
      const args = [
        id,
        reservation.lockId,
        reservation.uuid,
        change.delete ? 'delete' : 'update',
        change.status ?? '',
        change.stack !== undefined ? '1' : '0',
        change.stack ?? '',
        change.info !== undefined ? '1' : '0',
        change.info ?? '',
        change.release ? '1' : '0',
        String(change.release?.deferMs ?? 0),
        change.finished === undefined ? '0' : change.finished === null ? '1' : '2',
        change.finished?.at === undefined ? '' : String(Math.round(change.finished.at)),
        change.finished?.retainMs === undefined ? '' : String(change.finished.retainMs),
      ];
      const keys = recordScriptKeys(this.keys.shardOf(id), id);
      return (await RECORD_SCRIPTS.write.run(redis, { keys, args })) === 1;
    });
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#call('clearReservation', async (redis) => {
      const keys = recordScriptKeys(this.keys.shardOf(id), id);
      const args = [id, reservation.lockId, reservation.uuid];
      return (await RECORD_SCRIPTS.clearReservation.run(redis, { keys, args })) === 1;
    });
  }

  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#call('list', async (redis) => {
      const shards = await Promise.all(this.keys.shards.map((s) => listShard(redis, s, statuses)));
      return shards.flat();
    });
  }

  scanRunnable(range: IdRange | undefined, limit: number): Promise<BackendScan> {
    return this.#call('scanRunnable', (redis) =>
      scanRunnable(redis, this.#clock, this.keys.shardsIn(range), range, limit),
    );
  }

  reservations(
    filter: ReservationFilter = {},
  ): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#call('reservations', async (redis) => {
      const shards = this.keys.shardsIn(filter.range);
      const found = await Promise.all(shards.map((s) => shardReservations(redis, s, filter)));
      return found.flat();
    });
  }

  heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    return this.#call('heartbeat', (redis) =>
      liveness.heartbeat(redis, this.keys, this.#clock, { lockId, state, ttlMs }),
    );
  }

  instances(): Promise<InstanceRecord[]> {
    return this.#call('instances', (redis) => liveness.instances(redis, this.keys, this.#clock));
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    // The unsubscribe it returns never fails: it drops the listener even when offline.
    return this.#call('subscribeWakeups', () => this.#wakeups.subscribe(listener));
  }

  #insertCall(id: FateId, record: NewRecord) {
    return {
      keys: recordScriptKeys(this.keys.shardOf(id), id),
      args: [
        id,
        record.status,
        record.stack,
        record.info,
        record.op,
        this.keys.wakeup,
        String(record.deferMs ?? 0),
      ],
    };
  }

  /** Runs one operation on the open connection; any failure is FATE_STORE_UNAVAILABLE. */
  async #call<T>(what: string, fn: (redis: RedisClient) => Promise<T>): Promise<T> {
    const redis = this.#redis;
    if (!redis) throw unavailable(this.config, what, new Error('the connection is not open'));
    try {
      return await fn(redis);
    } catch (err) {
      throw unavailable(this.config, what, err);
    }
  }
}
