import type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendScan,
  ClaimedRecord,
  FateId,
  FinishClaimed,
  IdRange,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  Reservation,
  ReservationFilter,
  RunnablePosition,
  Status,
  StoreBackend,
  StoreCapabilities,
  StoredRecord,
} from '@fate/core';
import { declareCapabilities, ServerClock } from '@fate/core';
import { redisAgeOffDue, redisCounts, redisListPage } from './redis-admin.js';
import { redisDeleteAgedOff } from './redis-age-off.js';
import { RedisBatches } from './redis-batches.js';
import { claimMany } from './redis-claims.js';
import type { ResolvedRedisConfig } from './redis-config.js';
import { connect, connectCluster, disconnect } from './redis-connection.js';
import { unavailable } from './redis-errors.js';
import { finishAndClaim, writeArgs } from './redis-finish-claims.js';
import { insertAll, insertOne } from './redis-insert.js';
import { type RedisKeys, recordScriptKeys, redisKeys } from './redis-keys.js';
import * as liveness from './redis-liveness.js';
import { openClient } from './redis-open.js';
import { RECORD_SCRIPTS } from './redis-record-scripts.js';
import { listShard, RECORD_FIELDS, reservedRecord, toRecord } from './redis-records.js';
import { shardReservations } from './redis-reservations.js';
import { scanRunnable } from './redis-scan.js';
import type { RedisClient } from './redis-script.js';
import { SentClaims } from './redis-sent-claims.js';
import { RedisWakeups } from './redis-wakeups.js';

/**
 * A fate store backend on Redis (ioredis). Each transaction is a hash; every change of one
 * (record, reservation, indexes) is one Lua script, fenced in that script on the stored
 * reservation. Runnable work is a sorted set read by lex range, so a range partition
 * reads only its range. Deferrals are computed and judged by the server's clock.
 *
 * @example
 * const store = await createFatesStore(createRedisBackend('redis://127.0.0.1:6379?prefix=jobs'));
 */
export class RedisBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = declareCapabilities({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    wakeups: true,
    multiProcess: true,
    priorities: true,
  });
  /** The resolved, frozen configuration. */
  readonly config: ResolvedRedisConfig;
  /** The names of this store's keys. */
  readonly keys: RedisKeys;
  #redis?: RedisClient;
  readonly #claimsSent = new SentClaims();
  readonly #clock = new ServerClock();
  readonly #wakeups: RedisWakeups;
  readonly #batches = new RedisBatches(() => {
    if (!this.#redis) throw new Error('the connection is not open');
    return this.#redis;
  });

  readonly #create: boolean;

  /** With `create: false` it opens an existing store only (see `OpenOptions`). */
  constructor(config: ResolvedRedisConfig, options: { readonly create?: boolean } = {}) {
    this.#create = options.create !== false;
    this.config = config;
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
  deleteAgedOff?: (ids: readonly string[], q: BackendAgeOffQuery) => Promise<number>;
  counts?: () => Promise<BackendCount[]>;
  listPage?: (q: BackendListQuery) => Promise<BackendListPage>;

  async open(): Promise<void> {
    const redis = await openClient(this.config, this.keys, this.#clock, this.#create);
    this.#redis = redis;
    if ((await redis.get(this.keys.queries).catch(() => null)) !== '1') return;
    this.ageOffDue = (q) => this.#call('ageOffDue', (r) => redisAgeOffDue(r, this.keys, q));
    this.deleteAgedOff = (ids, q) =>
      this.#call('deleteAgedOff', (r) => redisDeleteAgedOff(r, this.keys, ids, q));
    this.counts = () => this.#call('counts', (r) => redisCounts(r, this.keys));
    this.listPage = (q) =>
      this.#call('listPage', (r) => redisListPage(r, this.keys, q, this.#clock.now()));
  }

  async close(): Promise<void> {
    await this.#batches.drain();
    const redis = this.#redis;
    this.#redis = undefined;
    await Promise.all([this.#wakeups.close(), disconnect(redis)]);
  }

  now(): number {
    return this.#clock.now();
  }

  insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#call('insert', (redis) => insertOne(redis, this.keys, id, record));
  }

  insertMany(records: ReadonlyArray<{ id: FateId; record: NewRecord }>): Promise<boolean[]> {
    return this.#call('insertMany', (redis) => insertAll(redis, this.keys, records));
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
    return this.#call('tryReserve', async () => {
      const { lockId, uuid } = reservation;
      const shard = this.keys.shardOf(id);
      const got = await this.#batches.tryReserve(shard, {
        id,
        keys: recordScriptKeys(shard, id),
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
    const repeat = this.#claimsSent.repeated(reservations);
    return this.#call('claimMany', (redis) =>
      claimMany(redis, this.keys.shardsIn(range), range, reservations, repeat, this.#clock),
    );
  }

  finishAndClaim(
    id: string,
    reservation: Reservation,
    change: RecordWrite,
    range: IdRange | undefined,
    reservations: readonly Reservation[],
  ): Promise<FinishClaimed> {
    const repeat = this.#claimsSent.repeated(reservations);
    return this.#call('finishAndClaim', (redis) =>
      finishAndClaim(
        redis,
        this.keys,
        { id, reservation, change },
        range,
        reservations,
        repeat,
        this.#clock,
      ),
    );
  }

  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean> {
    return this.#call('write', async (redis) => {
      const args = writeArgs(id, reservation, change);
      const shard = this.keys.shardOf(id);
      const keys = recordScriptKeys(shard, id);
      // deletes alone (rare: an admin's, a finished record's auto-clean)
      if (change.delete) return (await RECORD_SCRIPTS.write.run(redis, { keys, args })) === 1;
      return (await this.#batches.write(shard, { id, keys, args })) === 1;
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

  scanRunnable(
    range: IdRange | undefined,
    limit: number,
    after?: RunnablePosition,
  ): Promise<BackendScan> {
    return this.#call('scanRunnable', (redis) =>
      scanRunnable(redis, this.#clock, this.keys.shardsIn(range), range, limit, after),
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
