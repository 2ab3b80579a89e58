import type { FatesStore } from '../contract/fates-store.js';
import { invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import type { StepRegistry } from '../step.js';
import type { FlowMetrics } from './flow-metrics.js';
import { scheduleTick } from './schedule-tick.js';
import {
  type CompiledSchedule,
  compileSchedule,
  nextDue,
  type ScheduleOptions,
  type StepFactory,
} from './schedule-types.js';

/** Shortest wait between two judgements of one schedule, ms (no hot loop, whatever the clock). */
const MIN_WAIT_MS = 50;
/** Longest single timer: a schedule due later is looked at again then (one read). */
const MAX_WAIT_MS = 3_600_000;

export interface SchedulesContext<Env> {
  readonly store: FatesStore;
  readonly steps: StepRegistry<Env>;
  /** How soon to look again when another client held the record, ms. */
  readonly retryMs: number;
  readonly metrics: FlowMetrics;
  leaseValid(): boolean;
  onSubmitted(ids: readonly FateId[]): void;
  warn(message: string, error?: unknown): void;
}

/**
 * The schedules this engine takes part in. Each has one timer, set to its next due time by
 * the store's clock as this client knows it; at the due time every engine that registered it
 * reads the schedule record, and the one that reserves it seeds (`scheduleTick`).
 */
export class Schedules<Env> {
  readonly #ctx: SchedulesContext<Env>;
  readonly #schedules = new Map<string, CompiledSchedule<Env>>();
  readonly #loops = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();
  #running = false;

  constructor(ctx: SchedulesContext<Env>) {
    this.#ctx = ctx;
  }

  add(name: string, pattern: string, factory: StepFactory<Env>, options?: ScheduleOptions): void {
    const s = compileSchedule(name, pattern, factory, options);
    if (this.#schedules.has(name)) throw invalidArgument(`schedule already registered: ${name}`);
    this.#schedules.set(name, s);
    if (this.#running) this.#loops.set(name, this.#loop(s));
  }

  names(): string[] {
    return [...this.#schedules.keys()];
  }

  start(): void {
    this.#running = true;
    for (const s of this.#schedules.values()) this.#loops.set(s.name, this.#loop(s));
  }

  /** Stops every timer; resolves once a judgement under way ended. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stop.abort();
    await Promise.allSettled(this.#loops.values());
  }

  async #loop(s: CompiledSchedule<Env>): Promise<void> {
    const { store } = this.#ctx;
    let failures = 0;
    while (!this.#stop.signal.aborted) {
      let wait: number;
      try {
        const r = await scheduleTick(this.#ctx, s);
        failures = 0;
        if (r.submitted.length > 0) {
          this.#ctx.metrics.scheduleSeeded(s.name, r.submitted.length);
          this.#ctx.onSubmitted(r.submitted);
        }
        if (r.skipped > 0) this.#ctx.metrics.scheduleSkipped(s.name, r.skipped);
        const next = nextDue(s, store.now());
        if (r.busy) wait = this.#ctx.retryMs;
        else if (next === undefined)
          return; // the pattern has no more due times
        else wait = next - store.now();
      } catch (error) {
        failures++;
        wait = Math.min(1_000 * 2 ** Math.min(failures - 1, 10), 60_000);
        this.#ctx.warn(`schedule ${s.name}: judging it failed; tried again in ${wait} ms`, error);
      }
      const ms = Math.min(Math.max(wait, MIN_WAIT_MS), MAX_WAIT_MS);
      await pause(ms, this.#stop.signal);
    }
  }
}

/** Waits `ms` (an unref'd timer: schedules never keep a process alive) or until stopped. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
  });
}
