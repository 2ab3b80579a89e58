import type { Reservation } from '../contract/types.js';
import type { FateId } from '../ids.js';
import type { BackendCaller } from './backend-caller.js';

const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5_000;

/** What the ledger needs of a handle it tracks. */
export interface HeldHandle {
  readonly outcomeUnknown: boolean;
}

/**
 * This client's own record of the reservations it holds: those being taken (a tryReserve
 * in flight) and those a live handle holds. `releaseOrphans` releases anything the store
 * keeps under this client's lock id that is not here, or is held by a handle whose last
 * write's outcome stayed unknown (`keeps`). Handles are held weakly, so a handle dropped
 * without an unreserve does not pin its entry forever.
 *
 * It also finishes what a lost reply left open: a reservation whose tryReserve never got
 * an answer may be stored, so it is cleared in the background until the store says
 * yes or no (`uncertain`).
 */
export class ReservationLedger {
  readonly #held = new Map<string, WeakRef<HeldHandle> | 'pending'>();
  readonly #uncertain = new Map<string, { id: FateId; reservation: Reservation }>();
  /** Uuids of claims (`claimMany`) whose outcome stayed unknown: which ids, nobody knows. */
  readonly #uncertainClaims = new Set<string>();
  readonly #backend: BackendCaller;
  readonly #lockId: string;
  #timer: NodeJS.Timeout | undefined;
  #pause = FIRST_PAUSE_MS;
  #closed = false;

  /** `lockId`: this client's; the ledger clears and lists reservations through `backend`. */
  constructor(backend: BackendCaller, lockId: string) {
    this.#backend = backend;
    this.#lockId = lockId;
  }

  /** Ends one reservation by itself (one attempt; the caller tries again later). */
  #clear(id: FateId, reservation: Reservation): Promise<boolean> {
    return this.#backend.call('clearReservation', (b) => b.clearReservation(id, reservation));
  }

  /** The reservations the store keeps under this client's lock id. */
  async #listOwn(): Promise<Array<{ id: string; reservation: Reservation }>> {
    const lockId = this.#lockId;
    const rows = await this.#backend.retried('reservations', (b) => b.reservations({ lockId }));
    return rows.filter((r) => r.reservation.lockId === lockId);
  }

  /** A tryReserve with this uuid is about to be sent. */
  pending(uuid: string): void {
    this.#held.set(uuid, 'pending');
  }

  /** A handle now holds the reservation. */
  hold(uuid: string, handle: HeldHandle): void {
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

  /**
   * True while this client is taking the reservation with this uuid, or a handle holds it
   * and knows it does: not after a write whose outcome stayed unknown. Such a handle refuses
   * every use until `refresh()`, which ends it if the reservation is gone, so releasing the
   * reservation under it is safe; left alone it would be held until the handle is collected
   * or this client exits, by callers that never refresh nor abandon it.
   */
  keeps(uuid: string): boolean {
    if (!this.holds(uuid)) return false;
    const entry = this.#held.get(uuid);
    return entry === 'pending' || entry?.deref()?.outcomeUnknown !== true;
  }

  /** A tryReserve whose outcome stayed unknown: clear it once the store answers. */
  uncertain(id: FateId, reservation: Reservation): void {
    this.forget(reservation.uuid);
    if (this.#closed) return;
    this.#uncertain.set(reservation.uuid, { id, reservation });
    this.#schedule();
  }

  /**
   * Clears now this client's reservations of `id` whose tryReserve outcome stayed unknown,
   * before this client asks for `id` again: otherwise the store answers "held" — by itself —
   * and the id waits for the background clearing and then for someone to look for it again.
   * Each clear is asked again while its reply is lost; throws when the store does not answer
   * (the new ask would fail too).
   */
  async clearUncertain(id: FateId): Promise<void> {
    for (const [uuid, u] of this.#uncertain) {
      if (u.id !== id) continue;
      // true or false: either way it is not held now
      await this.#backend.retried('clearReservation', (b) => b.clearReservation(id, u.reservation));
      this.#uncertain.delete(uuid);
    }
  }

  /**
   * A claim of many whose outcome stayed unknown: any of these reservations may be stored,
   * on ids nobody knows. The store's reservations under this lock id are listed once it
   * answers, and those with one of these uuids cleared.
   */
  uncertainClaims(reservations: readonly Reservation[]): void {
    for (const r of reservations) this.forget(r.uuid);
    if (this.#closed) return;
    for (const r of reservations) this.#uncertainClaims.add(r.uuid);
    this.#schedule();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#uncertain.clear();
    this.#uncertainClaims.clear();
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
    if (this.#uncertainClaims.size > 0 && !(await this.#resolveClaims())) failed = true;
    this.#timer = undefined;
    this.#pause = failed ? Math.min(this.#pause * 2, MAX_PAUSE_MS) : FIRST_PAUSE_MS;
    if (this.#uncertain.size > 0 || this.#uncertainClaims.size > 0) this.#schedule();
  }

  /** Lists this client's reservations and clears the unknown claims among them. */
  async #resolveClaims(): Promise<boolean> {
    const uuids = [...this.#uncertainClaims];
    try {
      const stored = await this.#listOwn();
      const wanted = new Set(uuids);
      for (const { id, reservation } of stored) {
        if (wanted.has(reservation.uuid)) await this.#clear(id as FateId, reservation);
      }
      for (const uuid of uuids) this.#uncertainClaims.delete(uuid);
      return true;
    } catch {
      return false; // still no answer: try again later
    }
  }
}
