import type { FaultDecision, FaultSchedule } from './faults.js';
import type { History } from './history.js';
import type { SimProcess } from './process.js';

/** The error of an injected fault; the guard reports it as FATE_STORE_UNAVAILABLE. */
export class SimFault extends Error {
  constructor(what: string) {
    super(`simulated fault: ${what}`);
    this.name = 'SimFault';
  }
}

/** More backend calls than this in one simulated second by one client is a hot loop. */
export const MAX_CALLS_PER_SECOND = 1_500;

/** What `SimCalls` needs of its backend client's options (`SimBackendOptions`). */
export interface SimCallsOptions {
  readonly process: SimProcess;
  readonly client: string;
  readonly history: History;
  readonly faults: FaultSchedule;
  readonly hangMs: number;
  /** Calls of a batched kind at one simulated instant share one fault decision. */
  readonly batches?: boolean;
}

/**
 * The calls a batching backend sends together (core's `TickBatch`): PostgreSQL batches the
 * finishing writes and the reservations that start their record, Redis every reservation
 * too; both send deletes alone, which this model batches with the writes (more, not less).
 */
const BATCHED_OPS: ReadonlySet<string> = new Set(['write', 'tryReserve']);
const UNTOUCHED: FaultDecision = { gap: 0, delayMs: 0, fault: 'none' };

/**
 * How one simulated backend client's calls go (`SimBackend`): each waits while its process
 * is paused, gets the next decision of the world's fault plan (recorded in the history),
 * and is counted per simulated second — past `MAX_CALLS_PER_SECOND` the client loops hot,
 * a violation, and its further calls never return.
 */
export class SimCalls {
  readonly #o: SimCallsOptions;
  #second = -1;
  #calls = 0;
  #hot = false;
  /** The fault decision of the batch being gathered: its op and instant. */
  #batch: { op: string; at: number; decision: FaultDecision } | undefined;

  constructor(options: SimCallsOptions) {
    this.#o = options;
  }

  /** Makes one call `op` through the fault plan. */
  async run<T>(op: string, call: () => Promise<T>): Promise<T> {
    const p = this.#o.process;
    await p.gate();
    if (this.#count()) return new Promise<T>(() => undefined);
    const d = this.#decide(op);
    if (d.fault !== 'none' || d.delayMs > 0) {
      const h = this.#o.history;
      h.add({
        t: h.now(),
        e: 'fault',
        client: this.#o.client,
        op,
        fault: d.fault,
        delayMs: d.delayMs,
      });
    }
    if (d.delayMs > 0) await new Promise((r) => setTimeout(r, d.delayMs));
    await p.gate();
    if (d.fault === 'fail') throw new SimFault(`${op} failed before reaching the store`);
    const result = await call();
    if (d.fault === 'hang') await new Promise((r) => setTimeout(r, this.#o.hangMs));
    await p.gate();
    if (d.fault === 'lose') throw new SimFault(`${op} applied, its reply was lost`);
    return result;
  }

  /** The fault plan's next decision, or the batch's when this call joins one. */
  #decide(op: string): FaultDecision {
    if (!this.#o.batches) return this.#o.faults.take();
    // the plan aims at the batched kinds alone (other generators fault the rest)
    if (!BATCHED_OPS.has(op)) return UNTOUCHED;
    const at = this.#o.history.now();
    const batch = this.#batch;
    if (batch && batch.op === op && batch.at === at) return batch.decision;
    const decision = this.#o.faults.take();
    this.#batch = { op, at, decision };
    return decision;
  }

  /** Counts a call; true once this client loops hot (its calls then never return). */
  #count(): boolean {
    if (this.#hot) return true;
    const second = Math.floor(this.#o.history.now() / 1_000);
    if (second !== this.#second) {
      this.#second = second;
      this.#calls = 0;
    }
    if (++this.#calls <= MAX_CALLS_PER_SECOND) return false;
    this.#hot = true;
    this.#o.history.violation(
      `hot loop: ${this.#o.client} made more than ${MAX_CALLS_PER_SECOND} backend calls in simulated second ${second}`,
    );
    return true;
  }
}
