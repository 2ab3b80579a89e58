import { randomUUID } from 'node:crypto';
import type { StoredRecord } from '../contract/backend.js';
import type { FateStore } from '../contract/fate-store.js';
import type { Reservation, ReserveOptions, TryReserveOptions } from '../contract/types.js';
import { FateErrorCode, isFateError } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';
import { Status } from '../status.js';
import type { BackendCaller } from './backend-caller.js';
import { decodeStatus } from './codec.js';
import type { ReservationLedger } from './reservation-ledger.js';
import { type HandleHost, ReservedFate } from './reserved-fate.js';
import { untilFree } from './until-free.js';

/**
 * Taking reservations for this client: `tryReserve`, `reserve` (waiting until free),
 * `forceDelete`, and the handle made for a reservation just taken.
 */
export class Reserving {
  readonly #lockId: string;
  readonly #backend: BackendCaller;
  readonly #ledger: ReservationLedger;
  readonly #host: HandleHost;

  constructor(lockId: string, backend: BackendCaller, ledger: ReservationLedger, host: HandleHost) {
    this.#lockId = lockId;
    this.#backend = backend;
    this.#ledger = ledger;
    this.#host = host;
  }

  async tryReserve(id: FateId, options?: TryReserveOptions): Promise<FateStore | undefined> {
    parseFateId(id);
    const taken = await this.#take(id, options?.start === true);
    if (!taken) return undefined;
    return this.handle(id, taken.reservation, taken.record, options?.start === true);
  }

  /** A handle for a reservation this client just took; a status that does not decode is let go. */
  async handle(
    id: FateId,
    reservation: Reservation,
    record: StoredRecord,
    start: boolean,
  ): Promise<FateStore> {
    let status: Status;
    try {
      status = decodeStatus(id, record.status);
    } catch (err) {
      // Leave a record we cannot read exactly as it was, unreserved.
      await this.#backend
        .retried('tryReserve', (b) => b.clearReservation(id, reservation))
        .finally(() => this.#ledger.forget(reservation.uuid));
      throw err;
    }
    // Reserved to start, a backend answers with the status as it found it: SUBMITTED means
    // this very reservation started it (a repeat after a lost reply finds IN_PROGRESS, and
    // then nothing is assumed). The store now holds IN_PROGRESS.
    const startedNow = start && status === Status.SUBMITTED;
    const handle = new ReservedFate(
      this.#host,
      id,
      reservation,
      startedNow ? Status.IN_PROGRESS : status,
      record,
      startedNow,
    );
    this.#ledger.hold(reservation.uuid, handle);
    return handle;
  }

  reserve(id: FateId, options: ReserveOptions = {}): Promise<FateStore> {
    return untilFree(id, options, this.#readForWait, () => this.tryReserve(id));
  }

  async forceDelete(id: FateId, options: ReserveOptions = {}): Promise<void> {
    await untilFree(id, options, this.#readForWait, async () => {
      // Taken without decoding the status (backends never decode), so a record whose
      // status nobody can read can still be removed; the delete is fenced like any write.
      const taken = await this.#take(id);
      if (!taken) return undefined;
      const { reservation } = taken;
      try {
        const deleted = await this.#backend.retried('forceDelete', (b) =>
          b.write(id, reservation, { delete: true }),
        );
        // False: gone already (a repeat after our own delete applied) or cleared meanwhile
        // (an admin client need not be live): then it is tried again like a lost race.
        if (deleted || !(await this.#backend.retried('forceDelete', (b) => b.read(id))))
          return true;
        return undefined;
      } finally {
        this.#ledger.forget(reservation.uuid);
      }
    });
  }

  /**
   * Sets a fresh reservation of ours on `id`, or says why not (undefined: absent or held).
   * A lost reply is asked again with the same reservation; when the outcome stays unknown
   * the ledger clears it in the background, so it is never left held and forgotten.
   */
  async #take(
    id: FateId,
    start = false,
  ): Promise<{ reservation: Reservation; record: StoredRecord } | undefined> {
    await this.#ledger.clearUncertain(id); // our own earlier ask of it, left unknown
    const reservation: Reservation = { lockId: this.#lockId, uuid: randomUUID() };
    this.#ledger.pending(reservation.uuid);
    let got: StoredRecord | 'absent' | 'held';
    try {
      got = await this.#backend.retried('tryReserve', (b) => b.tryReserve(id, reservation, start));
    } catch (err) {
      if (isFateError(err, FateErrorCode.STORE_UNAVAILABLE))
        this.#ledger.uncertain(id, reservation);
      else this.#ledger.forget(reservation.uuid);
      throw err;
    }
    if (got === 'absent' || got === 'held') {
      this.#ledger.forget(reservation.uuid);
      return undefined;
    }
    return { reservation, record: got };
  }

  readonly #readForWait = (id: FateId) => this.#backend.retried('reserve', (b) => b.read(id));
}
