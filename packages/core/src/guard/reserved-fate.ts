import type { StoredRecord } from '../contract/backend.js';
import type { FateStore, TxChange } from '../contract/fate-store.js';
import type { InfoKey, Reservation, TxInfo } from '../contract/types.js';
import { FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import type { Status } from '../status.js';
import type { StepData } from '../step.js';
import type { BackendCaller } from './backend-caller.js';
import { checkInfoKey, decodeInfo, decodeStack, decodeStatus, sameReservation } from './codec.js';
import { checkDefer, type DraftBase, draftChanges, draftWrite } from './commit-draft.js';
import type { FinishClaim } from './finish-claims.js';
import { assertReserved, type HandleState, notHeld } from './handle-state.js';
import { sendWrite } from './handle-write.js';

/** What a reserved handle needs from the guard that made it. */
export interface HandleHost {
  readonly backend: BackendCaller;
  readonly maxRecordBytes: number;
  /** The reservation with this uuid is no longer this client's to hold. */
  ended(uuid: string): void;
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
  readonly startedNow: boolean;
  readonly priority: number;
  readonly #host: HandleHost;
  #deferUntil: number;
  #status: Status;
  #stackText: string;
  #infoText: string;
  #stack?: StepData[];
  #info?: TxInfo;
  #state: HandleState = 'reserved';
  #queue: Promise<unknown> = Promise.resolve();
  /** A claim the next write ending the reservation carries (`FatesStore.claimNext`). */
  #next: FinishClaim | undefined;

  constructor(
    host: HandleHost,
    id: FateId,
    reservation: Reservation,
    status: Status,
    record: Pick<StoredRecord, 'stack' | 'info' | 'deferUntil' | 'priority'>,
    startedNow = false,
  ) {
    this.startedNow = startedNow;
    this.priority = record.priority ?? 0;
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
    const stored = await this.#read();
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

  /** The guard's: the next commit that ends the reservation carries `claim`. */
  carry(claim: FinishClaim): void {
    this.#next?.cancel();
    if (this.#state !== 'reserved' && this.#state !== 'unknown') {
      claim.cancel();
      return;
    }
    this.#next = claim;
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
    const claim = draft.end ? this.#takeNext() : undefined;
    let ok: boolean;
    try {
      ok = await sendWrite(this.#host.backend, this.id, this.reservation, write, draft, claim);
    } catch (err) {
      claim?.settle('unknown');
      if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) this.#state = 'unknown';
      throw err;
    }
    claim?.settle(ok ? 'written' : 'refused');
    if (!ok) {
      this.#end('released');
      throw notHeld(this.id);
    }
    this.#status = draft.status;
    this.#stackText = draft.stackText;
    this.#infoText = draft.infoText;
    this.#stack = draft.stack;
    this.#info = draft.info;
    if (draft.end === 'delete') this.#end('deleted');
    else if (draft.end === 'unreserve') this.#end('released');
  }

  /** Reads the record, asked again while the reply is lost. */
  #read(): Promise<StoredRecord | undefined> {
    return this.#host.backend.retried('read', (b) => b.read(this.id));
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

  #takeNext(): FinishClaim | undefined {
    const next = this.#next;
    this.#next = undefined;
    return next;
  }

  #end(state: Exclude<HandleState, 'reserved' | 'unknown'>): void {
    this.#state = state;
    this.#takeNext()?.cancel();
    this.#host.ended(this.reservation.uuid);
  }

  #stackNow(): StepData[] {
    this.#assertReserved();
    this.#stack ??= decodeStack(this.id, this.#stackText);
    return this.#stack;
  }

  #assertReserved(): void {
    assertReserved(this.id, this.#state);
  }
}
