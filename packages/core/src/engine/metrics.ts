import {
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
  type ObservableResult,
} from '@opentelemetry/api';
import type { FatesStore } from '../contract/fates-store.js';
import { Status } from '../status.js';
import type { Pools } from './pools.js';

/** How long the transaction counts read from the store are reused, ms. */
const COUNTS_TTL_MS = 10_000;

/**
 * The engine's metrics, through the OpenTelemetry metrics API: a library records with the
 * API and the application chooses the SDK and exporter (Prometheus, OTLP, …); without one
 * every instrument is a no-op. Names follow OpenTelemetry's dotted style; a Prometheus
 * exporter turns `fate.steps.started` into `fate_steps_started_total`.
 */
export class FateMetrics {
  readonly #stepsStarted: Counter;
  readonly #stepsCompleted: Counter;
  readonly #stepDuration: Histogram;
  readonly #scanItems: Counter;
  readonly #scanDuration: Histogram;
  readonly #recoveries: Counter;
  readonly #warnings: Counter;
  readonly #finished: Counter;
  readonly #retries: Counter;
  readonly #overdue: Counter;
  #counts: { at: number; rows: Map<string, number> } | undefined;

  /**
   * `reportsCounts()` says whether this engine is the one that reports the transaction
   * counts (they are read from the store, so one engine does it for all).
   */
  constructor(
    provider: MeterProvider | undefined,
    instanceId: string,
    store: FatesStore,
    pools: Pools,
    reportsCounts: () => boolean,
  ) {
    const meter = (provider ?? metrics.getMeterProvider()).getMeter('@fate/core');
    const base: Attributes = { 'fate.instance': instanceId };
    const with_ = (a: Attributes) => ({ ...base, ...a });
    this.#stepsStarted = meter.createCounter('fate.steps.started', {
      description: 'Step calls and undos started, by step type and transaction priority',
    });
    this.#stepsCompleted = meter.createCounter('fate.steps.completed', {
      description: 'Step calls that returned (outcome ok) or threw (outcome error), by step type',
    });
    this.#stepDuration = meter.createHistogram('fate.step.duration', {
      description: 'Duration of step calls',
      unit: 's',
    });
    this.#scanItems = meter.createCounter('fate.scan.items', {
      description: 'Rows, keys or znodes read by work-finder scans',
    });
    this.#scanDuration = meter.createHistogram('fate.scan.duration', {
      description: 'Duration of work-finder scans',
      unit: 's',
    });
    this.#recoveries = meter.createCounter('fate.recoveries', {
      description: 'Transactions made runnable again after their holder died or forgot them',
    });
    this.#warnings = meter.createCounter('fate.warnings', {
      description: 'Warnings the engine survived (store faults, lost reservations, …)',
    });
    this.#finished = meter.createCounter('fate.transactions.finished', {
      description: 'Transactions this engine ended, by status',
    });
    this.#retries = meter.createCounter('fate.steps.retries', {
      description: 'Failed step calls deferred to be tried again (retry policies), by step type',
    });
    this.#overdue = meter.createCounter('fate.steps.overdue', {
      description: 'Step calls still running after their timeout (they ignore their signal)',
    });
    meter
      .createObservableGauge('fate.workers', { description: 'Workers by pool and state' })
      .addCallback((result) => {
        for (const s of pools.stats()) {
          result.observe(s.busy, with_({ 'fate.pool': s.name, 'fate.state': 'busy' }));
          result.observe(s.idle, with_({ 'fate.pool': s.name, 'fate.state': 'idle' }));
        }
      });
    meter
      .createObservableGauge('fate.queue.size', {
        description: 'Transactions waiting for a worker',
      })
      .addCallback((result) => {
        for (const s of pools.stats()) result.observe(s.queued, with_({ 'fate.pool': s.name }));
      });
    meter
      .createObservableGauge('fate.transactions', {
        description: 'Transactions in the store by status and op (reported by one engine)',
      })
      .addCallback(async (result) => {
        if (reportsCounts()) await this.#observeCounts(store, result);
      });
    this.#base = base;
  }

  readonly #base: Attributes;

  /** A step call or undo began, by step type and its transaction's priority. */
  stepStarted(type: string, priority: number): void {
    this.#stepsStarted.add(
      1,
      this.#attributes(`${type}\u0000priority\u0000${priority}`, () => ({
        'fate.step_type': type,
        'fate.priority': priority,
      })),
    );
  }

  stepCompleted(type: string, seconds: number, ok: boolean): void {
    const outcome = ok ? 'ok' : 'error';
    const attributes = this.#attributes(`${type}\u0000${outcome}`, () => ({
      'fate.step_type': type,
      'fate.outcome': outcome,
    }));
    this.#stepsCompleted.add(1, attributes);
    this.#stepDuration.record(seconds, attributes);
  }

  /** Attribute sets are made once per distinct value and reused: a step is a hot path. */
  readonly #cache = new Map<string, Attributes>();
  #attributes(key: string, make: () => Attributes): Attributes {
    let attributes = this.#cache.get(key);
    if (!attributes) {
      attributes = { ...this.#base, ...make() };
      if (this.#cache.size < 10_000) this.#cache.set(key, attributes);
    }
    return attributes;
  }

  scanned(strategy: string, items: number, seconds: number): void {
    const attributes = { 'fate.strategy': strategy, ...this.#base };
    this.#scanItems.add(items, attributes);
    this.#scanDuration.record(seconds, attributes);
  }

  recovered(count: number): void {
    this.#recoveries.add(count, this.#base);
  }

  warned(): void {
    this.#warnings.add(1, this.#base);
  }

  retried(type: string): void {
    this.#retries.add(
      1,
      this.#attributes(type, () => ({ 'fate.step_type': type })),
    );
  }

  overdue(type: string): void {
    this.#overdue.add(
      1,
      this.#attributes(type, () => ({ 'fate.step_type': type })),
    );
  }

  finished(status: string): void {
    this.#finished.add(
      1,
      this.#attributes(`status\u0000${status}`, () => ({ 'fate.status': status })),
    );
  }

  /** Counts by status and op, read with `list()` at most every 10 s (it reads every record). */
  async #observeCounts(store: FatesStore, result: ObservableResult): Promise<void> {
    const now = performance.now();
    if (!this.#counts || now - this.#counts.at > COUNTS_TTL_MS) {
      const rows = new Map<string, number>();
      for (const t of await store.list().catch(() => [])) {
        const status = t.corrupt ? 'CORRUPT' : t.status;
        const key = `${status}\u0000${t.opName ?? ''}`;
        rows.set(key, (rows.get(key) ?? 0) + 1);
      }
      this.#counts = { at: now, rows };
    }
    for (const [key, n] of this.#counts.rows) {
      const [status = Status.UNKNOWN, op = ''] = key.split('\u0000');
      // a store-wide figure: no instance label, whichever engine reports it
      result.observe(n, { 'fate.status': status, 'fate.op': op });
    }
  }
}
