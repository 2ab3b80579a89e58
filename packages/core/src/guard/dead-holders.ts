import { setTimeout as afterTimers } from 'node:timers/promises';
import type { IdRange, ReservationEntry } from '../contract/types.js';
import { inRange } from '../partition.js';
import type { BackendCaller } from './backend-caller.js';
import type { ClientLiveness } from './client-liveness.js';
import { isReservation, sameReservation } from './codec.js';
import type { ReservationLedger } from './reservation-ledger.js';

/**
 * Clearing reservations whose holders are dead (judged by this client's liveness
 * observation) and releasing this client's own orphans.
 */
export class DeadHolders {
  readonly #lockId: string;
  readonly #backend: BackendCaller;
  readonly #ledger: ReservationLedger;
  readonly #liveness: ClientLiveness;

  constructor(
    lockId: string,
    backend: BackendCaller,
    ledger: ReservationLedger,
    liveness: ClientLiveness,
  ) {
    this.#lockId = lockId;
    this.#backend = backend;
    this.#ledger = ledger;
    this.#liveness = liveness;
  }

  /**
   * Lists the reservations FIRST, then looks at liveness: a holder that registered and
   * reserved after the listing is not in it, and one that did so before it is in the
   * observation, first seen now, so it is live. Only holders watched for a full timeout
   * without a renewal (or that wrote their tombstone) are cleared, each conditionally on
   * its exact reservation, so two cleaners never do harm. The watch ends when the liveness
   * read was sent, not when its reply came: a beat that landed while a slow reply was on
   * its way is not in it, and its holder's lease may run from that beat.
   *
   * With `sweepStrays` (engines only), holders that stayed lapsed past their share's owner
   * are swept from the whole id space too, by the same rule: their reservations are listed
   * before the liveness read that judges them, never after (a holder that came back and
   * reserved anew in between must not lose its new work).
   */
  async clearDead(range: IdRange | undefined, sweepStrays = false): Promise<ReservationEntry[]> {
    const held = await this.reservations(range);
    const strays = sweepStrays ? await this.#listStrays() : [];
    const { sent, at } = await this.#liveness.observe();
    const cleared: ReservationEntry[] = [];
    let yielded = false;
    for (const entry of held) {
      const { lockId } = entry.reservation;
      if (lockId === this.#lockId) continue; // our own: releaseOrphans' business
      this.#liveness.observer.track(lockId, at);
      if (this.#liveness.observer.verdict(lockId, sent) === 'live') continue;
      if (!yielded) yielded = await overdueTimersFirst();
      if (await this.#clear(entry)) cleared.push(entry);
    }
    const stillStray = new Set(this.#liveness.observer.strays(sent));
    for (const { lockId, rows } of strays) {
      if (!stillStray.has(lockId)) continue; // it renewed (or resynced) since: not judged
      for (const entry of rows) {
        if (cleared.some((c) => c.id === entry.id)) continue;
        if (!yielded) yielded = await overdueTimersFirst();
        if (await this.#clear(entry)) cleared.push(entry);
      }
      this.#liveness.observer.swept(lockId);
    }
    return cleared;
  }

  /**
   * A cleaner cleans its share; a holder whose share's owner died before clearing it would
   * wait for that owner to be judged dead in turn (in a crash storm, again and again). So
   * holders that look lapsed half a timeout longer than it takes to judge them, as of the
   * last observation, have their reservations listed here, one listing by lock id each;
   * `clearDead` clears them only if the observation after the listing still judges so.
   */
  async #listStrays(): Promise<Array<{ lockId: string; rows: ReservationEntry[] }>> {
    const out: Array<{ lockId: string; rows: ReservationEntry[] }> = [];
    for (const lockId of this.#liveness.observer.strays(performance.now())) {
      if (lockId === this.#lockId) continue;
      const rows = await this.#backend.retried('reservations', (b) => b.reservations({ lockId }));
      out.push({
        lockId,
        rows: rows.filter(
          (r) => isReservation(r.reservation) && r.reservation.lockId === lockId,
        ) as ReservationEntry[],
      });
    }
    return out;
  }

  /**
   * Releases reservations stored under this lock id that this client does not hold, or holds
   * only through a handle whose last write's outcome is unknown (see `ReservationLedger.keeps`).
   */
  async releaseOrphans(): Promise<ReservationEntry[]> {
    const mine = await this.#backend.retried('releaseOrphans', (b) =>
      b.reservations({ lockId: this.#lockId }),
    );
    const released: ReservationEntry[] = [];
    for (const entry of mine) {
      if (!isReservation(entry.reservation) || entry.reservation.lockId !== this.#lockId) continue;
      if (this.#ledger.keeps(entry.reservation.uuid)) continue;
      const id = entry.id as ReservationEntry['id'];
      if (await this.#clear({ id, reservation: entry.reservation })) {
        released.push({ id, reservation: entry.reservation });
      }
    }
    return released;
  }

  async reservations(range?: IdRange): Promise<ReservationEntry[]> {
    const rows = await this.#backend.retried('reservations', (b) =>
      b.reservations(range ? { range } : undefined),
    );
    return rows.filter(
      (r) => isReservation(r.reservation) && inRange(r.id, range),
    ) as ReservationEntry[];
  }

  /**
   * Clears one reservation, asking again after a lost reply; a repeat that finds it gone
   * found our own first clear when the record no longer holds it.
   */
  async #clear(entry: ReservationEntry): Promise<boolean> {
    const clear = this.#backend.retriedTelling('clearReservation', (b) =>
      b.clearReservation(entry.id, entry.reservation),
    );
    const ok = await clear.answer;
    if (ok || !clear.repeated) return ok;
    const stored = await this.#backend.retried('clearReservation', (b) => b.read(entry.id));
    return stored !== undefined && !sameReservation(stored.reservation, entry.reservation);
  }
}

/**
 * Before a holder judged lapsed is cleared, every timer of this process that is already
 * due runs (Node runs due timers in order of their due time, and this one is due after
 * them): a holder in this same process whose own lease lapsed before the verdict (its
 * lease is shorter than the timeout) has then reported it and aborted its steps. Without
 * this, a stalled event loop lets the verdict and the takeover that follows it (all
 * microtasks on a store without I/O) run before that holder's lapse timer, and two runs
 * of one transaction or slot overlap in one process. The timer of `node:timers/promises`
 * is not faked by test fake timers.
 */
async function overdueTimersFirst(): Promise<true> {
  await afterTimers(1);
  return true;
}
