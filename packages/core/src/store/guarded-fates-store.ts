import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import { type FateId, keyedFateId, newFateId, parseFateId } from '../ids.js';
import { ALL_STATUSES, Status } from '../status.js';
import type { StoreBackend, StoredRecord } from './backend.js';
import type { StoreCapabilities } from './capabilities.js';
import {
  checkStep,
  decodeInfo,
  decodeStack,
  decodeStatus,
  decodeView,
  encodeJson,
  isReservation,
} from './codec.js';
import type { FateStore } from './fate-store.js';
import type { FatesStore } from './fates-store.js';
import { type ResolvedStoreOptions, resolveStoreOptions, type StoreOptions } from './options.js';
import { type HandleHost, ReservedFate } from './reserved-fate.js';
import type {
  FateView,
  IdRange,
  ListFilter,
  Reservation,
  ReservationEntry,
  ReserveOptions,
  ScanResult,
  SeedRequest,
  SeedResult,
  TxInfo,
  TxSummary,
} from './types.js';

/**
 * Opens `backend` and wraps it in the runtime guard every backend shares: argument
 * validation, data encoding, preconditions, open-once / close-once and error mapping.
 */
export async function createFatesStore(
  backend: StoreBackend,
  options?: StoreOptions,
): Promise<FatesStore> {
  const resolved = resolveStoreOptions(options);
  try {
    await backend.open();
  } catch (cause) {
    throw toFateError(cause, 'opening the store failed');
  }
  return new GuardedFatesStore(backend, resolved);
}

function toFateError(err: unknown, what: string): Error {
  if (err instanceof FateError || err instanceof TypeError || err instanceof RangeError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new FateError(FateErrorCode.STORE_UNAVAILABLE, `${what}: ${detail}`, { cause: err });
}

class GuardedFatesStore implements FatesStore {
  readonly #backend: StoreBackend;
  readonly #options: ResolvedStoreOptions;
  #closed = false;
  #closing?: Promise<void>;
  #registered = false;
  /** What reserved handles call back into. */
  readonly #host: HandleHost;

  constructor(backend: StoreBackend, options: ResolvedStoreOptions) {
    this.#backend = backend;
    this.#options = options;
    this.#host = {
      maxRecordBytes: backend.capabilities.maxRecordBytes,
      write: (id, reservation, change) =>
        this.#call('write', (b) => b.write(id, reservation, change)),
    };
  }

  get instanceId(): string {
    return this.#options.instanceId;
  }

  get capabilities(): StoreCapabilities {
    return this.#backend.capabilities;
  }

  async create(): Promise<FateId> {
    const info = encodeJson('info', { created: Date.now() } satisfies TxInfo);
    for (;;) {
      const id = newFateId();
      const inserted = await this.#call('create', (b) =>
        b.insert(id, { status: Status.NEW, stack: '[]', info }),
      );
      if (inserted) return id;
    }
  }

  async seed(request: SeedRequest): Promise<SeedResult> {
    if (typeof request !== 'object' || request === null)
      throw invalidArgument('seed needs a request');
    const step = checkStep(request.step);
    if (typeof request.opName !== 'string' || request.opName === '') {
      throw invalidArgument('seed needs a non-empty opName');
    }
    if (request.autoClean !== undefined && typeof request.autoClean !== 'boolean') {
      throw invalidArgument('autoClean must be a boolean');
    }
    const id = request.key === undefined ? newFateId() : keyedFateId(request.key);
    const info: TxInfo = {
      opName: request.opName,
      created: Date.now(),
      ...(request.autoClean ? { autoClean: true } : {}),
      ...(request.key ? { key: { type: request.key.type, key: request.key.key } } : {}),
    };
    const stack = encodeJson('stack', [step]);
    const infoText = encodeJson('info', info);
    this.#checkSize(id, stack, infoText);
    const created = await this.#call('seed', (b) =>
      b.insert(id, { status: Status.SUBMITTED, stack, info: infoText }),
    );
    return { id, created };
  }

  async tryReserve(id: FateId): Promise<FateStore | undefined> {
    parseFateId(id);
    const reservation: Reservation = { lockId: this.instanceId, uuid: randomUUID() };
    const got = await this.#call('tryReserve', (b) => b.tryReserve(id, reservation));
    if (got === 'absent' || got === 'held') return undefined;
    let status: Status;
    try {
      status = decodeStatus(id, got.status);
    } catch (err) {
      // Leave a record we cannot read exactly as it was, unreserved.
      await this.#call('tryReserve', (b) => b.clearReservation(id, reservation));
      throw err;
    }
    return new ReservedFate(this.#host, id, reservation, status, got);
  }

  reserve(id: FateId, options: ReserveOptions = {}): Promise<FateStore> {
    return this.#untilFree(id, options, () => this.tryReserve(id));
  }

  async forceDelete(id: FateId, options: ReserveOptions = {}): Promise<void> {
    await this.#untilFree(id, options, async () => {
      // Reserved without decoding the status (backends never decode), so a record whose
      // status nobody can read can still be removed; the delete is fenced like any write.
      const reservation: Reservation = { lockId: this.instanceId, uuid: randomUUID() };
      const got = await this.#call('forceDelete', (b) => b.tryReserve(id, reservation));
      if (got === 'absent' || got === 'held') return undefined;
      // False: the reservation was cleared meanwhile (an admin client need not be a live
      // instance), so it is tried again like any other lost race.
      const deleted = await this.#call('forceDelete', (b) =>
        b.write(id, reservation, { delete: true }),
      );
      return deleted || undefined;
    });
  }

  /**
   * Runs `attempt` until it returns a value, waiting while `id` is held: an absent id is
   * `FATE_NOT_FOUND` at once, the signal gives `FATE_ABORTED`, the timeout `FATE_TIMEOUT`.
   */
  async #untilFree<T>(
    id: FateId,
    options: ReserveOptions,
    attempt: () => Promise<T | undefined>,
  ): Promise<T> {
    parseFateId(id);
    const { signal, timeoutMs } = options;
    if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs < 0)) {
      throw invalidArgument('timeoutMs must be a finite number >= 0');
    }
    const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
    let pause = 5;
    for (;;) {
      if (signal?.aborted) {
        throw new FateError(FateErrorCode.ABORTED, `reserving ${id} was aborted`, {
          cause: signal.reason,
        });
      }
      const done = await attempt();
      if (done !== undefined) return done;
      const view = await this.#call('reserve', (b) => b.read(id));
      if (!view) throw new FateError(FateErrorCode.NOT_FOUND, `no transaction ${id}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new FateError(FateErrorCode.TIMEOUT, `${id} stayed reserved for ${timeoutMs} ms`);
      try {
        await sleep(Math.min(pause, left), undefined, signal ? { signal } : {});
      } catch {
        // the loop reports the abort
      }
      pause = Math.min(pause * 2, 100);
    }
  }

  async read(id: FateId): Promise<FateView> {
    parseFateId(id);
    const record = await this.#call('read', (b) => b.read(id));
    if (!record) return { id, status: Status.UNKNOWN, stack: [], info: {}, deferUntil: 0 };
    return decodeView(id, record);
  }

  async list(filter: ListFilter = {}): Promise<TxSummary[]> {
    let statuses: Set<Status> | undefined;
    if (filter.statuses !== undefined) {
      statuses = new Set(filter.statuses);
      for (const s of statuses) {
        if (!ALL_STATUSES.includes(s)) throw invalidArgument(`not a status: ${String(s)}`);
      }
    }
    if (filter.opName !== undefined && typeof filter.opName !== 'string') {
      throw invalidArgument('opName must be a string');
    }
    const rows = await this.#call('list', (b) => b.list(statuses));
    const out: TxSummary[] = [];
    for (const { id, record } of rows) {
      const summary = summarize(id as FateId, record);
      if (statuses && !statuses.has(summary.status)) continue;
      if (filter.opName !== undefined && summary.opName !== filter.opName) continue;
      out.push(summary);
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async scanRunnable(range?: IdRange): Promise<ScanResult> {
    if (range !== undefined) {
      for (const bound of [range.start, range.end]) {
        if (bound !== undefined && (typeof bound !== 'string' || !/^[0-9a-f-]*$/.test(bound))) {
          throw invalidArgument('range bounds are lowercase hex strings');
        }
      }
    }
    const started = performance.now();
    const page = await this.#call('scanRunnable', (b) => b.scanRunnable(range, Date.now()));
    return {
      ids: page.ids as FateId[],
      itemsRead: page.itemsRead,
      ms: performance.now() - started,
      ...(page.nextDeferralAt ? { nextDeferralAt: page.nextDeferralAt } : {}),
    };
  }

  async reservations(): Promise<ReservationEntry[]> {
    const rows = await this.#call('reservations', (b) => b.reservations());
    return rows.filter((r) => isReservation(r.reservation)) as ReservationEntry[];
  }

  async registerInstance(): Promise<void> {
    await this.heartbeat();
    this.#registered = true;
  }

  async unregisterInstance(): Promise<void> {
    await this.#call('unregisterInstance', (b) => b.removeInstance(this.instanceId));
    this.#registered = false;
  }

  async heartbeat(): Promise<void> {
    const { instanceId, livenessTimeoutMs } = this.#options;
    await this.#call('heartbeat', (b) => b.heartbeat(instanceId, livenessTimeoutMs));
  }

  async liveInstances(): Promise<string[]> {
    const ids = await this.#call('liveInstances', (b) => b.liveInstances(Date.now()));
    return [...new Set(ids)].sort();
  }

  async isAlive(instanceId: string): Promise<boolean> {
    if (typeof instanceId !== 'string') throw invalidArgument('instanceId must be a string');
    return (await this.liveInstances()).includes(instanceId);
  }

  async clearDeadReservations(): Promise<number> {
    const live = new Set(await this.liveInstances());
    let cleared = 0;
    for (const { id, reservation } of await this.reservations()) {
      if (live.has(reservation.lockId)) continue;
      if (await this.#call('clearDeadReservations', (b) => b.clearReservation(id, reservation))) {
        cleared++;
      }
    }
    return cleared;
  }

  async onWakeup(listener: () => void): Promise<() => Promise<void>> {
    if (typeof listener !== 'function') throw invalidArgument('onWakeup needs a function');
    return this.#call('onWakeup', (b) => b.subscribeWakeups(listener));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      if (this.#registered) {
        // A clean shutdown leaves membership at once; if this fails the record lapses.
        await this.#backend.removeInstance(this.instanceId).catch(() => undefined);
      }
    } finally {
      this.#closed = true;
      await this.#backend.close();
    }
  }

  #checkSize(id: string, stack: string, info: string): void {
    const size = Buffer.byteLength(stack) + Buffer.byteLength(info);
    const limit = this.capabilities.maxRecordBytes;
    if (size > limit) {
      throw new FateError(
        FateErrorCode.PAYLOAD_TOO_LARGE,
        `${id} would store ${size} bytes; this backend's limit is ${limit}`,
      );
    }
  }

  async #call<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T> {
    if (this.#closed || this.#closing) {
      throw new FateError(FateErrorCode.CLOSED, `${what}: the store is closed`);
    }
    try {
      return await fn(this.#backend);
    } catch (err) {
      throw toFateError(err, `${what} failed`);
    }
  }
}

function summarize(id: FateId, record: StoredRecord): TxSummary {
  const base = {
    id,
    deferUntil: record.deferUntil,
    ...(record.reservation ? { reservation: record.reservation } : {}),
  };
  try {
    const status = decodeStatus(id, record.status);
    const stack = decodeStack(id, record.stack);
    const info = decodeInfo(id, record.info);
    return {
      ...base,
      status,
      stackDepth: stack.length,
      ...(stack.length ? { top: stack[stack.length - 1]?.type } : {}),
      ...(info.opName !== undefined ? { opName: info.opName } : {}),
      ...(info.created !== undefined ? { created: info.created } : {}),
    } as TxSummary;
  } catch (err) {
    return { ...base, status: Status.UNKNOWN, stackDepth: 0, corrupt: (err as Error).message };
  }
}
