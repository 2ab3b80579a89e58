import type { InstanceRecord } from '../contract/backend.js';
import type { PoolLoad } from '../contract/liveness-types.js';

/** What a liveness record says, decoded from the guard's own JSON. */
export interface InstanceState {
  /** Changes with every heartbeat. */
  readonly beat: number;
  /**
   * The holder's liveness timeout: it renews well within it, and stops its own work once
   * it could not for that long, so observers wait at least this long before judging.
   */
  readonly timeoutMs?: number;
  /** The membership group of an engine; absent for plain clients, which own no partition. */
  readonly group?: string;
  /** Written once by a clean close: the instance holds nothing any more. */
  readonly gone?: true;
  /**
   * When it was written, by the store's clock as the writer knew it: for people reading a
   * listing once (an admin tool), never for judging liveness.
   */
  readonly at?: number;
  /** An engine's pools at this heartbeat, for people (at most 32, names cut to 64). */
  readonly pools?: readonly PoolLoad[];
}

/** The pools of a decoded state when they have the right shape; otherwise none. */
export function poolsOf(state: InstanceState | undefined): PoolLoad[] | undefined {
  const pools: unknown = state?.pools;
  if (!Array.isArray(pools)) return undefined;
  const counts = ['workers', 'busy', 'idle', 'queued'] as const;
  const ok = pools.every(
    (p) =>
      typeof p === 'object' &&
      p !== null &&
      typeof p.name === 'string' &&
      counts.every((k) => Number.isSafeInteger(p[k]) && p[k] >= 0),
  );
  return ok ? (pools as PoolLoad[]).slice(0, MAX_POOLS) : undefined;
}

const MAX_POOLS = 32;

export function encodeInstanceState(state: InstanceState): string {
  return JSON.stringify(state);
}

export function decodeInstanceState(text: string): InstanceState | undefined {
  try {
    const v = JSON.parse(text) as InstanceState;
    if (typeof v !== 'object' || v === null || typeof v.beat !== 'number') return undefined;
    return v;
  } catch {
    return undefined;
  }
}

/** How one lock id looks to this observer now. */
export type Verdict = 'live' | 'lapsed' | 'gone';

interface Seen {
  beat: number | undefined;
  timeoutMs: number | undefined;
  /** Monotonic ms when a renewal (a new beat) was last observed. */
  renewedAt: number;
  /** Monotonic ms when the store last had a record of it. */
  presentAt: number;
  group: string | undefined;
  gone: boolean;
  /** `renewedAt` when its reservations were last swept across the whole id space. */
  sweptAt?: number;
}

/**
 * Judges liveness by one clock: this process's monotonic clock, watching liveness records
 * change (the steady-time idea of Accumulo 4). A holder is lapsed once this observer has
 * watched it for a full timeout without seeing it renew; no two machines' clocks are ever
 * compared, so clock skew between hosts changes nothing.
 *
 * Observations count only while they are continuous and this client's own heartbeats
 * flow: when more than `maxGapMs` passed since the last observation (this process paused,
 * or it could not reach the store), or when its own heartbeat failed (`interrupted`),
 * nothing seen before counts and every holder gets a full timeout again from the next
 * observation. That is what keeps a store outage, short or longer than the timeout, from
 * making holders look dead that could not renew because the store was away.
 */
export class LeaseObserver {
  readonly #timeoutMs: number;
  readonly #maxGapMs: number;
  readonly #seen = new Map<string, Seen>();
  #lastObservedAt = Number.NEGATIVE_INFINITY;
  /** When the read behind the last observation taken in was sent. */
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #interrupted = false;

  constructor(timeoutMs: number, maxGapMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#maxGapMs = maxGapMs;
  }

  /**
   * Takes in every liveness record the store had when a read sent at monotonic `sentAt`
   * (default `at`) was answered at `at`. Reads of one client overlap (a sweep's, the
   * membership's, an admin listing's): one sent before a read already taken in shows the
   * store no later than that one did, and is ignored. Taken in last, it would make every
   * holder that came since look absent, and a beat older than the one seen a renewal.
   */
  observe(records: readonly InstanceRecord[], at: number, sentAt = at): void {
    if (sentAt < this.#lastSentAt) return;
    this.#lastSentAt = sentAt;
    const resync = this.#interrupted || at - this.#lastObservedAt > this.#maxGapMs;
    this.#interrupted = false;
    this.#lastObservedAt = at;
    for (const s of this.#seen.values()) if (resync) s.renewedAt = Math.max(s.renewedAt, at);
    for (const { lockId, state } of records) {
      const decoded = decodeInstanceState(state);
      const beat = decoded?.beat;
      const s = this.#seen.get(lockId);
      if (!s) {
        this.#seen.set(lockId, {
          beat,
          timeoutMs: decoded?.timeoutMs,
          renewedAt: at,
          presentAt: at,
          group: decoded?.group,
          gone: decoded?.gone === true,
        });
        continue;
      }
      s.presentAt = at;
      if (beat !== s.beat) s.renewedAt = at;
      s.beat = beat;
      s.timeoutMs = decoded?.timeoutMs ?? s.timeoutMs;
      s.group = decoded?.group;
      s.gone = decoded?.gone === true;
    }
    // Forget what has been absent for long: its reservations were cleared by then.
    for (const [lockId, s] of this.#seen) {
      const long = 4 * Math.max(this.#timeoutMs, this.#timeoutOf(s));
      if (at - s.presentAt > long && at - s.renewedAt > long) {
        this.#seen.delete(lockId);
      }
    }
  }

  /**
   * This client's own heartbeat failed: the store may not have taken anyone's, so what is
   * observed from now on counts only after the next observation starts afresh.
   */
  interrupted(): void {
    this.#interrupted = true;
  }

  /**
   * Starts watching a lock id the store has no liveness record of (a holder named by a
   * reservation): it is lapsed only after a full timeout of watching from now.
   */
  track(lockId: string, at: number): void {
    if (!this.#seen.has(lockId)) {
      this.#seen.set(lockId, {
        beat: undefined,
        timeoutMs: undefined,
        renewedAt: at,
        presentAt: Number.NEGATIVE_INFINITY,
        group: undefined,
        gone: false,
      });
    }
  }

  /** The verdict on `lockId` at monotonic `at`; a lock id never observed is live. */
  verdict(lockId: string, at: number): Verdict {
    const s = this.#seen.get(lockId);
    if (!s) return 'live';
    if (s.gone) return 'gone';
    return at - s.renewedAt >= this.#timeoutOf(s) ? 'lapsed' : 'live';
  }

  /** Lock ids observed live at `at` whose record is still in the store, with their group. */
  live(at: number): Array<{ lockId: string; group: string | undefined }> {
    const out: Array<{ lockId: string; group: string | undefined }> = [];
    for (const [lockId, s] of this.#seen) {
      if (s.presentAt === this.#lastObservedAt && this.verdict(lockId, at) === 'live') {
        out.push({ lockId, group: s.group });
      }
    }
    return out.sort((a, b) => (a.lockId < b.lockId ? -1 : a.lockId > b.lockId ? 1 : 0));
  }

  /**
   * Holders silent for their timeout and half as long again, not swept since they last
   * renewed. By then the engine owning their share should have cleared them; when it did
   * not (it died too, or joined too recently to judge), any observer sweeps them, once.
   */
  strays(at: number): string[] {
    const out: string[] = [];
    for (const [lockId, s] of this.#seen) {
      if (s.gone || s.sweptAt === s.renewedAt) continue;
      if (at - s.renewedAt >= 1.5 * this.#timeoutOf(s)) out.push(lockId);
    }
    return out;
  }

  /** The stray's reservations were swept; again only after it renews and lapses anew. */
  swept(lockId: string): void {
    const s = this.#seen.get(lockId);
    if (s) s.sweptAt = s.renewedAt;
  }

  /** A holder's own declared timeout when it gave one (it renews by it), else ours. */
  #timeoutOf(s: Seen): number {
    return s.timeoutMs !== undefined && s.timeoutMs > 0 ? s.timeoutMs : this.#timeoutMs;
  }

  /** Monotonic ms at which the first live holder would lapse if it never renewed again. */
  nextLapseAt(): number | undefined {
    let next: number | undefined;
    for (const s of this.#seen.values()) {
      if (s.gone) continue;
      const at = s.renewedAt + this.#timeoutOf(s);
      next = next === undefined ? at : Math.min(next, at);
    }
    return next;
  }
}
