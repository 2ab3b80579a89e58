import { FateError, FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import { ALLOWED, isStoredStatus, type Status } from '../status.js';
import type { StepData } from '../step.js';
import type { RecordWrite, StoredRecord } from './backend.js';
import {
  checkInfoKey,
  checkJson,
  checkStep,
  decodeInfo,
  decodeStack,
  decodeStatus,
  encodeJson,
  sameReservation,
} from './codec.js';
import type { FateStore, TxChange } from './fate-store.js';
import { MAX_STACK_DEPTH } from './limits.js';
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

/** The state a commit works on; stack and info are decoded only when a change needs them. */
interface Draft {
  status: Status;
  stackText: string;
  infoText: string;
  stack?: StepData[];
  info?: TxInfo;
  end?: 'delete' | 'unreserve';
  deferMs: number;
}

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
  ) {
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
    const draft = this.#draft(changes);
    const write = this.#toWrite(draft);
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

  #end(state: Exclude<HandleState, 'reserved' | 'unknown'>): void {
    this.#state = state;
    this.#host.ended(this.reservation.uuid);
  }

  /** Applies the changes to a copy of the cached state, checking each precondition. */
  #draft(changes: readonly TxChange[]): Draft {
    // Stack and info are copied only when a change touches them, and encoded once at the
    // end however many changes touched them: a commit is on every step's path.
    const d: Draft = {
      status: this.#status,
      stackText: this.#stackText,
      infoText: this.#infoText,
      deferMs: 0,
    };
    let stackChanged = false;
    let infoChanged = false;
    const stack = (): StepData[] => {
      if (!stackChanged) {
        d.stack = [...(this.#stack ?? decodeStack(this.id, this.#stackText))];
        stackChanged = true;
      }
      return d.stack as StepData[];
    };
    const info = (): TxInfo => {
      if (!infoChanged) {
        d.info = { ...(this.#info ?? decodeInfo(this.id, this.#infoText)) };
        infoChanged = true;
      }
      return d.info as TxInfo;
    };
    for (const change of changes) {
      if (d.end) throw invalidArgument(`nothing may follow ${d.end} in one commit`);
      switch (change?.op) {
        case 'setStatus':
          if (!isStoredStatus(change.status)) {
            throw invalidArgument(`not a status that can be stored: ${String(change.status)}`);
          }
          d.status = change.status;
          break;
        case 'push': {
          const step = checkStep(change.step);
          this.#requireStatus(d.status, ALLOWED.push, 'push');
          if (stack().length >= MAX_STACK_DEPTH) {
            throw new FateError(
              FateErrorCode.STACK_OVERFLOW,
              `${this.id} already has ${MAX_STACK_DEPTH} steps`,
            );
          }
          stack().push(step);
          break;
        }
        case 'pop':
          this.#requireStatus(d.status, ALLOWED.pop, 'pop');
          if (stack().length === 0) {
            throw new FateError(FateErrorCode.STACK_EMPTY, `${this.id} has no step to pop`);
          }
          stack().pop();
          break;
        case 'setInfo': {
          const key = checkInfoKey(change.key);
          if (change.value !== undefined) checkJson(`info ${key}`, change.value);
          if (change.value === undefined) delete info()[key];
          else (info() as Record<string, unknown>)[key] = change.value;
          break;
        }
        case 'delete':
          this.#requireStatus(d.status, ALLOWED.delete, 'delete');
          d.end = 'delete';
          break;
        case 'forceDelete':
          d.end = 'delete';
          break;
        case 'unreserve':
          d.deferMs = checkDefer([change]);
          d.end = 'unreserve';
          break;
        default:
          throw invalidArgument(`unknown change: ${JSON.stringify(change)}`);
      }
    }
    if (d.end !== 'delete') {
      if (stackChanged) d.stackText = encodeJson('stack', d.stack);
      if (infoChanged) d.infoText = encodeJson('info', d.info);
    }
    if (!stackChanged && this.#stack) d.stack = this.#stack;
    if (!infoChanged && this.#info) d.info = this.#info;
    return d;
  }

  #toWrite(d: Draft): RecordWrite {
    if (d.end === 'delete') return { delete: true };
    const limit = this.#host.maxRecordBytes;
    // a UTF-16 code unit is at most 3 UTF-8 bytes: most records need no byte count at all
    const small = (d.stackText.length + d.infoText.length) * 3 <= limit;
    const size = small ? 0 : Buffer.byteLength(d.stackText) + Buffer.byteLength(d.infoText);
    if (size > limit) {
      throw new FateError(
        FateErrorCode.PAYLOAD_TOO_LARGE,
        `${this.id} would store ${size} bytes; this backend's limit is ${this.#host.maxRecordBytes}`,
      );
    }
    return {
      ...(d.status !== this.#status ? { status: d.status } : {}),
      ...(d.stackText !== this.#stackText ? { stack: d.stackText } : {}),
      ...(d.infoText !== this.#infoText ? { info: d.infoText } : {}),
      ...(d.end === 'unreserve' ? { release: { deferMs: d.deferMs } } : {}),
    };
  }

  #requireStatus(status: Status, allowed: ReadonlySet<Status>, op: string): void {
    if (!allowed.has(status)) {
      throw new FateError(
        FateErrorCode.ILLEGAL_STATUS,
        `${op} is not allowed in status ${status} (allowed: ${[...allowed].join(', ')})`,
      );
    }
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

/** Validates the deferral of unreserve changes; returns the last one. */
function checkDefer(changes: readonly TxChange[]): number {
  let ms = 0;
  for (const c of changes) {
    const v = c.op === 'unreserve' ? (c.deferMs ?? 0) : 0;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw Object.assign(new RangeError(`deferMs must be a finite number >= 0, got ${v}`), {
        code: FateErrorCode.INVALID_ARGUMENT,
      });
    }
    ms = Math.ceil(v);
  }
  return ms;
}
