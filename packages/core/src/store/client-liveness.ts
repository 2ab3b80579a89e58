import { setTimeout as afterTimers } from 'node:timers/promises';
import { inRange } from '../partition.js';
import type { StoreBackend } from './backend.js';
import { isReservation, sameReservation } from './codec.js';
import {
  decodeInstanceState,
  encodeInstanceState,
  LeaseObserver,
  poolsOf,
} from './lease-observer.js';
import { instanceIdOf } from './lock-id.js';
import type { ReservationLedger } from './reservation-ledger.js';
import type {
  IdRange,
  InstanceRecordView,
  LiveInstance,
  PoolLoad,
  RegisterOptions,
  ReservationEntry,
} from './types.js';

/** How the guard runs a backend call: open check and error mapping, with or without retries. */
export interface BackendCaller {
  call<T>(what: string, fn: (backend: StoreBackend) => Promise<T>): Promise<T>;
  retried<T>(
    what: string,
    fn: (backend: StoreBackend) => Promise<T>,
    onRetry?: () => void,
  ): Promise<T>;
}

/**
 * One client's side of liveness: it writes its own liveness record (a beat counter, its
 * membership group, a tombstone at close) and judges everyone else's with a
 * `LeaseObserver`, by watching them renew on this process's monotonic clock.
 */
export class ClientLiveness {
  readonly #lockId: string;
  readonly #timeoutMs: number;
  readonly #backend: BackendCaller;
  readonly #ledger: ReservationLedger;
  readonly #observer: LeaseObserver;
  #beat = 0;
  #group: string | undefined;
  #load: RegisterOptions['load'];
  #registered = false;
  readonly #now: () => number;

  /** `now` is the store's clock (stamped on records for people reading them). */
  constructor(
    lockId: string,
    timeoutMs: number,
    backend: BackendCaller,
    ledger: ReservationLedger,
    now: () => number,
  ) {
    this.#now = now;
    this.#lockId = lockId;
    this.#timeoutMs = timeoutMs;
    this.#backend = backend;
    this.#ledger = ledger;
    // An observer watching less often than every half timeout may have missed renewals
    // the store did not take: it starts afresh rather than judge on what it saw.
    this.#observer = new LeaseObserver(timeoutMs, timeoutMs / 2);
  }

  get registered(): boolean {
    return this.#registered;
  }

  /**
   * Records stay at least this long after their last write, and dead ones go after it:
   * observers judge a holder by watching it, so a record that is gone is only "not
   * renewing" — the ttl is housekeeping, not liveness.
   */
  get #ttlMs(): number {
    return 3 * this.#timeoutMs;
  }

  async register(options: RegisterOptions = {}): Promise<void> {
    this.#group = options.group;
    this.#load = options.load;
    await this.heartbeat();
    this.#registered = true;
  }

  async heartbeat(): Promise<void> {
    const state = encodeInstanceState({
      beat: ++this.#beat,
      timeoutMs: this.#timeoutMs,
      at: this.#now(),
      ...(this.#group !== undefined ? { group: this.#group } : {}),
      ...this.#pools(),
    });
    try {
      await this.#backend.call('heartbeat', (b) => b.heartbeat(this.#lockId, state, this.#ttlMs));
    } catch (err) {
      // If the store did not take ours, it may not have taken anyone's.
      this.#observer.interrupted();
      throw err;
    }
  }

  /** The engine's pools for its record; a provider that throws costs the listing, not the beat. */
  #pools(): { pools?: PoolLoad[] } {
    if (!this.#load) return {};
    try {
      const pools = poolsOf({ beat: 0, pools: this.#load() });
      return pools ? { pools: pools.map((p) => ({ ...p, name: p.name.slice(0, 64) })) } : {};
    } catch {
      return {};
    }
  }

  /** Writes the tombstone: observers judge this lock id gone at once. */
  async unregister(): Promise<void> {
    const state = encodeInstanceState({ beat: ++this.#beat, gone: true, at: this.#now() });
    await this.#backend.call('unregisterInstance', (b) =>
      b.heartbeat(this.#lockId, state, this.#ttlMs),
    );
    this.#registered = false;
  }

  async liveInstances(): Promise<LiveInstance[]> {
    const { sent } = await this.#observe();
    return this.#observer.live(sent).map(({ lockId, group }) => ({
      lockId,
      instanceId: instanceIdOf(lockId),
      ...(group !== undefined ? { group } : {}),
    }));
  }

  /** `id` is a lock id, or an instance id standing for any of its incarnations. */
  async isAlive(id: string): Promise<boolean> {
    const live = await this.liveInstances();
    return live.some((i) => i.lockId === id || i.instanceId === id);
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
    const { sent, at } = await this.#observe();
    const cleared: ReservationEntry[] = [];
    let yielded = false;
    for (const entry of held) {
      const { lockId } = entry.reservation;
      if (lockId === this.#lockId) continue; // our own: releaseOrphans' business
      this.#observer.track(lockId, at);
      if (this.#observer.verdict(lockId, sent) === 'live') continue;
      if (!yielded) yielded = await overdueTimersFirst();
      if (await this.#clear(entry)) cleared.push(entry);
    }
    const stillStray = new Set(this.#observer.strays(sent));
    for (const { lockId, rows } of strays) {
      if (!stillStray.has(lockId)) continue; // it renewed (or resynced) since: not judged
      for (const entry of rows) {
        if (cleared.some((c) => c.id === entry.id)) continue;
        if (!yielded) yielded = await overdueTimersFirst();
        if (await this.#clear(entry)) cleared.push(entry);
      }
      this.#observer.swept(lockId);
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
    for (const lockId of this.#observer.strays(performance.now())) {
      if (lockId === this.#lockId) continue;
      const rows = await this.#backend.call('reservations', (b) => b.reservations({ lockId }));
      out.push({
        lockId,
        rows: rows.filter(
          (r) => isReservation(r.reservation) && r.reservation.lockId === lockId,
        ) as ReservationEntry[],
      });
    }
    return out;
  }

  /** Releases reservations stored under this lock id that this client does not hold. */
  async releaseOrphans(): Promise<ReservationEntry[]> {
    const mine = await this.#backend.call('releaseOrphans', (b) =>
      b.reservations({ lockId: this.#lockId }),
    );
    const released: ReservationEntry[] = [];
    for (const entry of mine) {
      if (!isReservation(entry.reservation) || entry.reservation.lockId !== this.#lockId) continue;
      if (this.#ledger.holds(entry.reservation.uuid)) continue;
      const id = entry.id as ReservationEntry['id'];
      if (await this.#clear({ id, reservation: entry.reservation })) {
        released.push({ id, reservation: entry.reservation });
      }
    }
    return released;
  }

  /**
   * Every liveness record as it reads now, for people: when each last wrote (store clock)
   * and whether that is within its timeout. Judging is `liveInstances`' job, not this.
   */
  async records(): Promise<InstanceRecordView[]> {
    const records = await this.#backend.call('instances', (b) => b.instances());
    const now = this.#now();
    return records
      .map(({ lockId, state }) => {
        const s = decodeInstanceState(state);
        const timeoutMs = s?.timeoutMs ?? this.#timeoutMs;
        const ago = s?.at !== undefined ? Math.max(0, now - s.at) : undefined;
        return {
          lockId,
          instanceId: instanceIdOf(lockId),
          ...(s?.group !== undefined ? { group: s.group } : {}),
          gone: s?.gone === true,
          timeoutMs,
          ...(ago !== undefined ? { lastHeartbeatMsAgo: ago } : {}),
          current: s?.gone !== true && ago !== undefined && ago < timeoutMs,
          ...(poolsOf(s) ? { pools: poolsOf(s) } : {}),
        };
      })
      .sort((a, b) => (a.lockId < b.lockId ? -1 : a.lockId > b.lockId ? 1 : 0));
  }

  async reservations(range?: IdRange): Promise<ReservationEntry[]> {
    const rows = await this.#backend.call('reservations', (b) =>
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
    let repeated = false;
    const ok = await this.#backend.retried(
      'clearReservation',
      (b) => b.clearReservation(entry.id, entry.reservation),
      () => {
        repeated = true;
      },
    );
    if (ok || !repeated) return ok;
    const stored = await this.#backend.retried('clearReservation', (b) => b.read(entry.id));
    return stored !== undefined && !sameReservation(stored.reservation, entry.reservation);
  }

  /**
   * Reads every liveness record and lets the observer see them. Returns when the read was
   * sent (what it shows is no older: judge by it) and when its reply came (a renewal it
   * shows happened no later: count from it).
   */
  async #observe(): Promise<{ sent: number; at: number }> {
    const sent = performance.now();
    const records = await this.#backend.call('liveInstances', (b) => b.instances());
    const at = performance.now();
    this.#observer.observe(records, at);
    return { sent, at };
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
