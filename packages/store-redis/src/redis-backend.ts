import type {
  BackendScan,
  FateId,
  IdRange,
  NewRecord,
  RecordWrite,
  Reservation,
  Status,
  StoreBackend,
  StoreCapabilities,
  StoredRecord,
} from '@fate/core';
import type { Redis } from 'ioredis';
import { type RedisConfig, type RedisConfigInput, resolveRedisConfig } from './redis-config.js';
import { connect, disconnect, unavailable } from './redis-connection.js';
import { type RedisKeys, recordScriptKeys, redisKeys } from './redis-keys.js';
import * as liveness from './redis-liveness.js';
import {
  listRecords,
  listReservations,
  RECORD_FIELDS,
  reservedRecord,
  toRecord,
} from './redis-records.js';
import { SCRIPTS } from './redis-scripts.js';
import { RedisWakeups } from './redis-wakeups.js';

/**
 * A fate store backend on Redis (ioredis). Each transaction is a hash; every change that
 * touches more than one key (record, reservation, indexes) is one Lua script, and every
 * write is fenced in that script on the stored reservation. Runnable work is a sorted set
 * read by lex range, so a range partition reads only its range.
 *
 * @example
 * const store = await createFatesStore(new RedisBackend('redis://127.0.0.1:6379?prefix=jobs'));
 */
export class RedisBackend implements StoreBackend {
  readonly capabilities: StoreCapabilities = Object.freeze({
    maxRecordBytes: 8 * 1024 * 1024,
    sortedScan: true,
    wakeups: true,
    multiProcess: true,
  });
  /** The resolved, frozen configuration. */
  readonly config: RedisConfig;
  /** The names of this store's keys. */
  readonly keys: RedisKeys;
  #redis?: Redis;
  readonly #wakeups: RedisWakeups;

  constructor(config: RedisConfigInput) {
    this.config = resolveRedisConfig(config);
    this.keys = redisKeys(this.config.prefix);
    this.#wakeups = new RedisWakeups(() => connect(this.config), this.keys.wakeup);
  }

  async open(): Promise<void> {
    const redis = await connect(this.config);
    try {
      await Promise.all(Object.values(SCRIPTS).map((script) => script.load(redis)));
    } catch (err) {
      redis.disconnect();
      throw unavailable(this.config, 'loading the scripts', err);
    }
    this.#redis = redis;
  }

  async close(): Promise<void> {
    const redis = this.#redis;
    this.#redis = undefined;
    await Promise.all([this.#wakeups.close(), disconnect(redis)]);
  }

  insert(id: FateId, record: NewRecord): Promise<boolean> {
    return this.#call('insert', async (redis) => {
      const args = [id, record.status, record.stack, record.info, this.keys.wakeup];
      return (await SCRIPTS.insert.run(redis, recordScriptKeys(this.keys, id), args)) === 1;
    });
  }

  read(id: FateId): Promise<StoredRecord | undefined> {
    return this.#call('read', async (redis) =>
      toRecord(await redis.hmget(this.keys.tx(id), ...RECORD_FIELDS)),
    );
  }

  tryReserve(id: FateId, reservation: Reservation): Promise<StoredRecord | 'absent' | 'held'> {
    return this.#call('tryReserve', async (redis) => {
      const keys = recordScriptKeys(this.keys, id);
      const got = await SCRIPTS.tryReserve.run(redis, keys, [
        id,
        reservation.lockId,
        reservation.uuid,
      ]);
      if (got === 'absent' || got === 'held') return got;
      const { lockId, uuid } = reservation;
      return reservedRecord(got as string[], { lockId, uuid });
    });
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
        String(change.release?.deferUntil ?? 0),
      ];
      return (await SCRIPTS.write.run(redis, recordScriptKeys(this.keys, id), args)) === 1;
    });
  }

  clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#call('clearReservation', async (redis) => {
      const args = [id, reservation.lockId, reservation.uuid];
      return (
        (await SCRIPTS.clearReservation.run(redis, recordScriptKeys(this.keys, id), args)) === 1
      );
    });
  }

  list(statuses?: ReadonlySet<Status>): Promise<Array<{ id: string; record: StoredRecord }>> {
    return this.#call('list', (redis) => listRecords(redis, this.keys, statuses));
  }

  scanRunnable(range: IdRange | undefined, now: number): Promise<BackendScan> {
    return this.#call('scanRunnable', async (redis) => {
      // Lex bounds: '[' includes the start, '(' excludes the end; '-' and '+' are open.
      const min = range?.start !== undefined ? `[${range.start}` : '-';
      const max = range?.end !== undefined ? `(${range.end}` : '+';
      const keys = [this.keys.runnable, this.keys.deferred];
      const [ids, itemsRead, next] = (await SCRIPTS.scan.run(redis, keys, [
        String(now),
        min,
        max,
        this.keys.txPrefix,
      ])) as [string[], number, string];
      return { ids, itemsRead, ...(next !== '' ? { nextDeferralAt: Number(next) } : {}) };
    });
  }

  reservations(): Promise<Array<{ id: string; reservation: Reservation }>> {
    return this.#call('reservations', (redis) => listReservations(redis, this.keys));
  }

  heartbeat(instanceId: string, timeoutMs: number): Promise<void> {
    return this.#call('heartbeat', (redis) =>
      liveness.heartbeat(redis, this.keys, instanceId, timeoutMs),
    );
  }

  removeInstance(instanceId: string): Promise<void> {
    return this.#call('removeInstance', (redis) =>
      liveness.removeInstance(redis, this.keys, instanceId),
    );
  }

  liveInstances(now: number): Promise<string[]> {
    return this.#call('liveInstances', (redis) => liveness.liveInstances(redis, this.keys, now));
  }

  subscribeWakeups(listener: () => void): Promise<() => Promise<void>> {
    // The unsubscribe it returns never fails: it drops the listener even when offline.
    return this.#call('subscribeWakeups', () => this.#wakeups.subscribe(listener));
  }

  /** Runs one operation on the open connection; any failure is FATE_STORE_UNAVAILABLE. */
  async #call<T>(what: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = this.#redis;
    if (!redis) throw unavailable(this.config, what, new Error('the connection is not open'));
    try {
      return await fn(redis);
    } catch (err) {
      throw unavailable(this.config, what, err);
    }
  }
}
