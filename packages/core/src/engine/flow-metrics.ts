import { type Counter, type MeterProvider, metrics } from '@opentelemetry/api';
import type { SeedRequest, SeedResult } from '../contract/types.js';
import { seedDeferMs } from '../guard/seed-deferral.js';

/**
 * Metrics of schedules, cluster-wide op limits, child transactions and deferred seeds
 * (OpenTelemetry API; no-op without an SDK).
 */
export class FlowMetrics {
  readonly #seeded: Counter;
  readonly #skipped: Counter;
  readonly #waits: Counter;
  readonly #acquired: Counter;
  readonly #woken: Counter;
  readonly #deferred: Counter;
  readonly #instance: string;

  constructor(provider: MeterProvider | undefined, instanceId: string) {
    const meter = (provider ?? metrics.getMeterProvider()).getMeter('@fate/core');
    this.#instance = instanceId;
    this.#seeded = meter.createCounter('fate.schedule.seeded', {
      description: 'Scheduled transactions this engine submitted, by schedule',
    });
    this.#skipped = meter.createCounter('fate.schedule.skipped', {
      description: 'Due times skipped by the catch-up rule (at least this many), by schedule',
    });
    this.#waits = meter.createCounter('fate.limit.waits', {
      description: 'Runs given back because the op had no free slot (concurrency or rate), by op',
    });
    this.#acquired = meter.createCounter('fate.limit.acquired', {
      description: 'Slots of a limited op taken to run, by op',
    });
    this.#woken = meter.createCounter('fate.children.woken', {
      description: 'Parked parents woken by a child this engine finished',
    });
    this.#deferred = meter.createCounter('fate.seeds.deferred', {
      description:
        'Transactions seeded deferred (delayMs, or a runAt not yet past), by op and kind',
    });
  }

  scheduleSeeded(name: string, n: number): void {
    this.#seeded.add(n, { 'fate.instance': this.#instance, 'fate.schedule': name });
  }

  scheduleSkipped(name: string, n: number): void {
    this.#skipped.add(n, { 'fate.instance': this.#instance, 'fate.schedule': name });
  }

  limitWaited(op: string): void {
    this.#waits.add(1, { 'fate.instance': this.#instance, 'fate.op': op });
  }

  parentWoken(): void {
    this.#woken.add(1, { 'fate.instance': this.#instance });
  }

  limitAcquired(op: string): void {
    this.#acquired.add(1, { 'fate.instance': this.#instance, 'fate.op': op });
  }

  /**
   * Counts the seeds of `requests` that created a transaction stored deferred: a `delayMs`
   * above 0 or a `runAt` after `now` (this client's estimate of the store's clock when it
   * sent them). A keyed repeat that found its transaction writes nothing and is not counted.
   */
  seedsDeferred(
    requests: readonly SeedRequest[],
    results: readonly SeedResult[],
    now: number,
  ): void {
    requests.forEach((r, i) => {
      if (!results[i]?.created || seedDeferMs(r, now) === 0) return;
      const kind = r.delayMs !== undefined ? 'delayMs' : 'runAt';
      this.#deferred.add(1, {
        'fate.instance': this.#instance,
        'fate.op': r.opName,
        'fate.deferral': kind,
      });
    });
  }
}
