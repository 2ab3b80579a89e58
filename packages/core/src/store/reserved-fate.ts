import { FateError, FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StepData } from '../step.js';
import type { RecordWrite, StoredRecord } from './backend.js';
import { checkInfoKey, decodeInfo, decodeStack, decodeStatus, sameReservation } from './codec.js';
import {
  checkDefer,
  type Draft,
  type DraftBase,
  draftChanges,
  draftWrite,
} from './commit-draft.js';
import type { FateStore, TxChange } from './fate-store.js';
import { retryUnknown } from './retry.js';
import type { InfoKey, Reservation, TxInfo } from './types.js';

/** What a reserved handle needs from the guard that made it. */
export interface HandleHost {
  readonly maxRecordBytes: number;
  /** One backend write with the guard's open check and error mapping (no retries). */
  write(id: FateId, reservation: Reservation, change: RecordWrite): Promise<boolean>;
  /** Reads the record (retried while the reply is lost). */
  read(id: FateId): Promise<StoredRecord | undefined>;
  /** The reservation with this uuid is no longer this client's to hold. */
  ended(uuid: string): void;
}

type HandleState = 'reserved' | 'released' | 'deleted' | 'unknown' | 'abandoned';

/**
 * The guard's `FateStore`: validates every change against the cached state (valid while
 * the reservation is ours, and fencing makes any stale write fail), then sends one
 * fenced backend write per `commit`, asked again with the same write while its reply is
 * lost. When even that gives no answer, the cached state may be wrong (the write may or
 * may not have applied): the handle then refuses everything until `refresh()`.
 */
export class ReservedFate implements FateStore {
  readonly id: FateId;
  readonly reservation: Reservation;
  readonly startedNow: boolean;
  readonly #host: HandleHost;
  #deferUntil: number;
  #status: Status;
  #stackText: string;
  #infoText: string;
  #stack?: StepData[];
  #info?: TxInfo;
  #state: HandleState = 'reserved';
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    host: HandleHost,
    id: FateId,
    reservation: Reservation,
    status: Status,
    record: Pick<StoredRecord, 'stack' | 'info' | 'deferUntil'>,
    startedNow = false,
  ) {
    this.startedNow = startedNow;
    this.#host = host;
    this.id = id;
    this.reservation = reservation;
    this.#deferUntil = record.deferUntil;
    this.#status = status;
    this.#stackText = record.stack;
    this.#infoText = record.info;
  }

  get deferUntil(): number {
    return this.#deferUntil;
  }

  get isReserved(): boolean {
    return this.#state === 'reserved';
  }

  get outcomeUnknown(): boolean {
    return this.#state === 'unknown';
  }

  async refresh(): Promise<boolean> {
    if (this.#state !== 'reserved' && this.#state !== 'unknown') return false;
    const stored = await this.#host.read(this.id);
    if (!stored || !sameReservation(stored.reservation, this.reservation)) {
      this.#end(stored ? 'released' : 'deleted');
      return false;
    }
    this.#status = decodeStatus(this.id, stored.status);
    this.#stackText = stored.stack;
    this.#infoText = stored.info;
    this.#stack = undefined;
    this.#info = undefined;
    this.#deferUntil = stored.deferUntil;
    this.#state = 'reserved';
    return true;
  }

  abandon(): void {
    if (this.#state === 'reserved' || this.#state === 'unknown') this.#end('abandoned');
  }

  async getStatus(): Promise<Status> {
    this.#assertReserved();
    return this.#status;
  }

  async top(): Promise<StepData | undefined> {
    return this.#stackNow().at(-1);
  }

  async getStack(): Promise<readonly StepData[]> {
    return [...this.#stackNow()];
  }

  async getInfo<K extends InfoKey>(key: K): Promise<TxInfo[K] | undefined> {
    checkInfoKey(key);
    this.#assertReserved();
    this.#info ??= decodeInfo(this.id, this.#infoText);
    return this.#info[key];
  }

  setStatus(status: Status): Promise<void> {
    return this.commit([{ op: 'setStatus', status }]);
  }

  push(step: StepData): Promise<void> {
    return this.commit([{ op: 'push', step }]);
  }

  pop(): Promise<void> {
    return this.commit([{ op: 'pop' }]);
  }

  setInfo<K extends InfoKey>(key: K, value: TxInfo[K] | undefined): Promise<void> {
    return this.commit([{ op: 'setInfo', key, value }]);
  }

  delete(): Promise<void> {
    return this.commit([{ op: 'delete' }]);
  }

  forceDelete(): Promise<void> {
    return this.commit([{ op: 'forceDelete' }]);
  }

  unreserve(deferMs = 0): Promise<void> {
    return this.commit([{ op: 'unreserve', deferMs }]);
  }

  commit(changes: readonly TxChange[]): Promise<void> {
    // One commit at a time per handle keeps the cached state coherent.
    const run = this.#queue.then(() => this.#commit(changes));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #commit(changes: readonly TxChange[]): Promise<void> {
    if (!Array.isArray(changes) || changes.length === 0) {
      throw invalidArgument('commit needs a non-empty array of changes');
    }
    if (this.#state === 'deleted' && changes.every((c) => c?.op === 'unreserve')) {
      checkDefer(changes);
      return; // unreserve after delete is fine: the reservation went with the record
    }
    this.#assertReserved();
    const base = this.#base();
    const draft = draftChanges(base, changes);
    const write = draftWrite(base, draft, this.#host.maxRecordBytes);
    let ok: boolean;
    try {
      ok = await this.#send(write, draft);
    } catch (err) {
      if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) this.#state = 'unknown';
      throw err;
    }
    if (!ok) {
      this.#end('released');
      throw new FateError(
        FateErrorCode.NOT_RESERVED,
        `reservation of ${this.id} is no longer held (cleared, deleted or taken over)`,
      );
    }
    this.#status = draft.status;
    this.#stackText = draft.stackText;
    this.#infoText = draft.infoText;
    this.#stack = draft.stack;
    this.#info = draft.info;
    if (draft.end === 'delete') this.#end('deleted');
    else if (draft.end === 'unreserve') this.#end('released');
  }

  /**
   * Sends the write, asking again while the reply is lost. A repeat of a write that does
   * not end the reservation simply applies again (the write is absolute). A repeat of one
   * that ends it finds the reservation gone either way: what is stored tells whether our
   * first attempt ended it or someone cleared us before it applied.
   */
  async #send(write: RecordWrite, draft: Draft): Promise<boolean> {
    let repeated = false;
    const ok = await retryUnknown(
      () => this.#host.write(this.id, this.reservation, write),
      () => {
        repeated = true;
      },
    );
    if (ok || !repeated || !(write.release || write.delete)) return ok;
    const stored = await this.#host.read(this.id);
    if (write.delete) return stored === undefined;
    return (
      stored !== undefined &&
      !sameReservation(stored.reservation, this.reservation) &&
      stored.status === draft.status &&
      stored.stack === draft.stackText &&
      stored.info === draft.infoText
    );
  }

  /** The cached state a commit's draft starts from. */
  #base(): DraftBase {
    return {
      id: this.id,
      status: this.#status,
      stackText: this.#stackText,
      infoText: this.#infoText,
      stack: this.#stack,
      info: this.#info,
    };
  }

  #end(state: Exclude<HandleState, 'reserved' | 'unknown'>): void {
    this.#state = state;
    this.#host.ended(this.reservation.uuid);
  }

  #stackNow(): StepData[] {
    this.#assertReserved();
    this.#stack ??= decodeStack(this.id, this.#stackText);
    return this.#stack;
  }

  #assertReserved(): void {
    if (this.#state === 'unknown') {
      throw new FateError(
        FateErrorCode.OUTCOME_UNKNOWN,
        `the last write to ${this.id} may or may not have applied; refresh() before using it`,
      );
    }
    if (this.#state !== 'reserved') {
      throw new FateError(FateErrorCode.NOT_RESERVED, `${this.id} is ${this.#state}, not reserved`);
    }
  }
}
