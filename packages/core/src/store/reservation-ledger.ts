import type { FateId } from '../ids.js';
import type { Reservation } from './types.js';

/** What the ledger needs from the guard to end a reservation by itself. */
export type ClearReservation = (id: FateId, reservation: Reservation) => Promise<boolean>;

const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5_000;

/**
 * This client's own record of the reservations it holds: those being taken (a tryReserve
 * in flight) and those a live handle holds. `releaseOrphans` releases anything the store
 * keeps under this client's lock id that is not here. Handles are held weakly, so a
 * handle dropped without an unreserve does not pin its entry forever.
 *
 * It also finishes what a lost reply left open: a reservation whose tryReserve never got
 * an answer may be stored, so it is cleared in the background until the store says
 * yes or no (`uncertain`).
 */
export class ReservationLedger {
  readonly #held = new Map<string, WeakRef<object> | 'pending'>();
  readonly #uncertain = new Map<string, { id: FateId; reservation: Reservation }>();
  readonly #clear: ClearReservation;
  #timer: NodeJS.Timeout | undefined;
  #pause = FIRST_PAUSE_MS;
  #closed = false;

  constructor(clear: ClearReservation) {
    this.#clear = clear;
  }

  /** A tryReserve with this uuid is about to be sent. */
  pending(uuid: string): void {
    this.#held.set(uuid, 'pending');
  }

  /** A handle now holds the reservation. */
  hold(uuid: string, handle: object): void {
    this.#held.set(uuid, new WeakRef(handle));
  }

  /** The reservation ended (released, deleted, fenced off, abandoned) or was never taken. */
  forget(uuid: string): void {
    this.#held.delete(uuid);
  }

  /** True while this client is taking or holding the reservation with this uuid. */
  holds(uuid: string): boolean {
    const entry = this.#held.get(uuid);
    if (entry === undefined) return false;
    if (entry === 'pending' || entry.deref() !== undefined) return true;
    this.#held.delete(uuid);
    return false;
  }

  /** A tryReserve whose outcome stayed unknown: clear it once the store answers. */
  uncertain(id: FateId, reservation: Reservation): void {
    this.forget(reservation.uuid);
    if (this.#closed) return;
    this.#uncertain.set(reservation.uuid, { id, reservation });
    this.#schedule();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#uncertain.clear();
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => void this.#resolve(), this.#pause);
    this.#timer.unref();
  }

  async #resolve(): Promise<void> {
    let failed = false;
    for (const [uuid, { id, reservation }] of [...this.#uncertain]) {
      try {
        await this.#clear(id, reservation); // true or false: either way it is not held now
        this.#uncertain.delete(uuid);
      } catch {
        failed = true; // still no answer: try again later
      }
    }
    this.#timer = undefined;
    this.#pause = failed ? Math.min(this.#pause * 2, MAX_PAUSE_MS) : FIRST_PAUSE_MS;
    if (this.#uncertain.size > 0) this.#schedule();
  }
}
