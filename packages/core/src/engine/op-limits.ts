import type { FateStore } from '../contract/fate-store.js';
import type { FatesStore } from '../contract/fates-store.js';
import { FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import { type FateId, keyedFateId } from '../ids.js';
import { RUNNABLE_STATUSES, Status } from '../status.js';
import type { FlowMetrics } from './flow-metrics.js';

/** A cluster-wide limit of one op, enforced through the store for every engine at once. */
export interface OpLimit {
  /** At most this many transactions of the op running at once, across all engines. */
  readonly concurrency?: number;
  /** At most this many starts per second, across all engines (averaged over `slots / rate`). */
  readonly perSecond?: number;
}

/** The op name of slot records (NEW, never run; `slots` per limited op). */
export const SLOT_OP = 'fate:slot';
/** Longest a run waits (stored deferral) before trying for a slot again, ms. */
const MAX_WAIT_MS = 2_000;
const FIRST_WAIT_MS = 100;
const MAX_SLOTS = 1_000;

interface Resolved {
  readonly op: string;
  readonly slots: number;
  /** Each slot is deferred this long from one start to the next (store clock), ms. */
  readonly spacingMs: number;
  /** Held for the whole run (concurrency), or only to start (rate alone). */
  readonly holdForRun: boolean;
}

export function checkLimits(
  limits: Readonly<Record<string, OpLimit>> | undefined,
): Map<string, Resolved> {
  const out = new Map<string, Resolved>();
  if (limits === undefined) return out;
  if (typeof limits !== 'object' || limits === null)
    throw invalidArgument('limits must be an object');
  for (const [op, limit] of Object.entries(limits)) {
    const { concurrency, perSecond } = limit ?? {};
    if (concurrency === undefined && perSecond === undefined) {
      throw invalidArgument(`limits.${op} needs concurrency and/or perSecond`);
    }
    if (
      concurrency !== undefined &&
      (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > MAX_SLOTS)
    ) {
      throw invalidArgument(`limits.${op}.concurrency must be an integer from 1 to ${MAX_SLOTS}`);
    }
    if (
      perSecond !== undefined &&
      (!Number.isFinite(perSecond) || perSecond <= 0 || perSecond > MAX_SLOTS)
    ) {
      throw invalidArgument(`limits.${op}.perSecond must be a number > 0 and <= ${MAX_SLOTS}`);
    }
    const slots = concurrency ?? Math.max(1, Math.ceil(perSecond as number));
    out.set(op, {
      op,
      slots,
      spacingMs: perSecond === undefined ? 0 : Math.ceil((slots / perSecond) * 1_000),
      holdForRun: concurrency !== undefined,
    });
  }
  return out;
}

export function slotId(op: string, index: number): FateId {
  return keyedFateId({ type: SLOT_OP, key: `${op}#${index}` });
}

/** A slot this engine holds for one run; `leave` gives it back. */
export interface Pass {
  leave(): Promise<void>;
}

const FREE: Pass = { leave: async () => undefined };

/**
 * Cluster-wide limits per op (docs/architecture.md, limits): `slots` keyed records per op,
 * NEW and never run. A run of a limited op first reserves a free slot — a reservation like
 * any other, fenced, and cleared by the dead-holder sweep when its engine dies — and
 * releases it with a stored deferral of `slots / perSecond` seconds from its start, so no
 * slot starts more often than that by the store's clock. No slot: the run is given back
 * with a stored deferral, never counted as a failure.
 */
export class OpLimits {
  readonly #limits: Map<string, Resolved>;
  readonly #store: FatesStore;
  readonly #metrics: FlowMetrics;
  /** Per op: a slot pass found none free, consecutive (the stored wait grows). */
  readonly #misses = new Map<string, { n: number; at: number }>();
  /** Slots seen deferred, until when (store clock): not tried before then. */
  readonly #deferred = new Map<FateId, number>();
  readonly #made = new Map<string, Promise<void>>();

  constructor(limits: Map<string, Resolved>, store: FatesStore, metrics: FlowMetrics) {
    this.#limits = limits;
    this.#store = store;
    this.#metrics = metrics;
  }

  get size(): number {
    return this.#limits.size;
  }

  /**
   * A pass for a reserved transaction: free when its op has no limit (or it is not going to
   * run), a held slot, or undefined after giving the transaction back deferred.
   */
  async enter(fate: FateStore): Promise<Pass | undefined> {
    if (this.#limits.size === 0) return FREE;
    // info that cannot be decoded is the runner's to record (it fails the transaction)
    const op = (await fate.getInfo('opName').catch(() => undefined)) ?? '';
    const limit = this.#limits.get(op);
    if (!limit || !RUNNABLE_STATUSES.has(await fate.getStatus())) return FREE;
    if (fate.deferUntil > this.#store.now()) return FREE; // the runner keeps the deferral
    const slot = await this.#take(limit);
    if (typeof slot === 'number') {
      this.#metrics.limitWaited(op);
      // given back as found: SUBMITTED again when reserving started it
      if (fate.startedNow) {
        await fate.commit([
          { op: 'setStatus', status: Status.SUBMITTED },
          { op: 'unreserve', deferMs: slot },
        ]);
      } else await fate.unreserve(slot);
      return undefined;
    }
    this.#metrics.limitAcquired(op);
    const started = performance.now();
    const leave = () => this.#leave(limit, slot, started);
    if (!limit.holdForRun) {
      await leave();
      return FREE;
    }
    return { leave };
  }

  /** A free slot, reserved; or how long to defer the run (ms) when there is none. */
  async #take(limit: Resolved): Promise<FateStore | number> {
    await this.#ensure(limit);
    const now = this.#store.now();
    let soonest = Number.POSITIVE_INFINITY;
    const first = Math.floor(Math.random() * limit.slots);
    for (let k = 0; k < limit.slots; k++) {
      const id = slotId(limit.op, (first + k) % limit.slots);
      const until = this.#deferred.get(id) ?? 0;
      if (until > now) {
        soonest = Math.min(soonest, until);
        continue;
      }
      const h = await this.#store.tryReserve(id);
      if (!h) continue;
      if (h.deferUntil > this.#store.now()) {
        this.#deferred.set(id, h.deferUntil);
        soonest = Math.min(soonest, h.deferUntil);
        await h.unreserve(h.deferUntil - this.#store.now());
        continue;
      }
      this.#deferred.delete(id);
      this.#misses.delete(limit.op);
      return h;
    }
    // Grows ×1.5 per miss, but at most once per first wait: a burst of runs finding no slot
    // together is one miss, not a backoff of seconds.
    const last = this.#misses.get(limit.op) ?? { n: 0, at: Number.NEGATIVE_INFINITY };
    const nowMs = performance.now();
    const misses = nowMs - last.at >= FIRST_WAIT_MS ? { n: last.n + 1, at: nowMs } : last;
    this.#misses.set(limit.op, misses);
    if (misses.n % 20 === 0 && misses !== last) this.#made.delete(limit.op); // remade if deleted
    const backoff = Math.min(FIRST_WAIT_MS * 1.5 ** Math.min(misses.n - 1, 20), MAX_WAIT_MS);
    const wait = soonest === Number.POSITIVE_INFINITY ? backoff : Math.min(soonest - now, backoff);
    return Math.max(1, Math.round(wait * (0.75 + Math.random() / 2)));
  }

  async #leave(limit: Resolved, slot: FateStore, started: number): Promise<void> {
    const deferMs = Math.ceil(limit.spacingMs - (performance.now() - started));
    for (let attempt = 0; ; attempt++) {
      try {
        if (slot.outcomeUnknown && !(await slot.refresh())) return;
        if (slot.isReserved) await slot.unreserve(Math.max(0, deferMs));
        if (deferMs > 0) this.#deferred.set(slot.id, this.#store.now() + deferMs);
        return;
      } catch (error) {
        // cleared meanwhile (this engine's lease lapsed): the slot is someone else's now
        if (isFateError(error, FateErrorCode.NOT_RESERVED)) return;
        if (attempt >= 3) {
          slot.abandon(); // released by releaseOrphans, or cleared when this engine dies
          return;
        }
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  }

  /** Creates the op's slot records once per engine (keyed: every engine makes the same). */
  #ensure(limit: Resolved): Promise<void> {
    let made = this.#made.get(limit.op);
    if (!made) {
      const requests = Array.from({ length: limit.slots }, (_, i) => ({
        held: true,
        key: { type: SLOT_OP, key: `${limit.op}#${i}` },
        opName: SLOT_OP,
        step: { type: SLOT_OP, state: { op: limit.op, index: i } },
        internal: { kind: 'slot', op: limit.op, index: i },
      }));
      made = this.#store.seedMany(requests).then(() => undefined);
      made.catch(() => this.#made.delete(limit.op));
      this.#made.set(limit.op, made);
    }
    return made;
  }
}
