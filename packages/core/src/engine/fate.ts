import { setTimeout as sleep } from 'node:timers/promises';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import type { Repo } from '../step.js';
import type { FateView, SeedResult } from '../store/types.js';
import { childStepTypes } from './children.js';
import { cancel, deleteTransaction } from './client-calls.js';
import { Completions } from './completions.js';
import type { FateEvents } from './events.js';
import type { FateResult, SeedOptions, WaitOptions } from './fate-types.js';
import { FlowMetrics } from './flow-metrics.js';
import { Lease } from './lease.js';
import { type FateLogger, throttled } from './logger.js';
import { Membership } from './membership.js';
import { FateMetrics } from './metrics.js';
import { OpLimits } from './op-limits.js';
import { type FateOptions, type ResolvedFateOptions, resolveFateOptions } from './options.js';
import { PoolWatch } from './pool-watch.js';
import type { PoolStats } from './pools.js';
import { membershipGroup } from './pools.js';
import type { ScheduleOptions, StepFactory } from './schedule-types.js';
import { Schedules } from './schedules.js';
import { WorkFinder, type WorkFinderOptions } from './work-finder.js';
import { Workers } from './workers.js';

export type { FateResult, SeedOptions, WaitOptions };

/**
 * The fault-tolerant executor. One instance per process (or more): a work finder scans
 * this instance's partition of the shared store and hands transactions to a pool of
 * workers; any instance resumes what a dead one left.
 *
 * @example
 * const fate = new Fate({ store, env, steps: [ChargeCard, ShipOrder] });
 * await fate.start();
 * const { id } = await fate.seed(new ChargeCard({ order: 42 }), { opName: 'order' });
 * const result = await fate.waitForCompletion(id);
 * await fate.shutdown();
 */
export class Fate<Env = unknown> {
  readonly #o: ResolvedFateOptions<Env>;
  readonly #finder: WorkFinder;
  readonly #membership: Membership;
  readonly #lease: Lease;
  readonly #workers: Workers<Env>[];
  readonly #watch: PoolWatch;
  readonly #completions: Completions;
  readonly #schedules: Schedules<Env>;
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: FateOptions<Env>) {
    const resolved = resolveFateOptions(options);
    const onEvent = resolved.onEvent;
    const logger = throttled(resolved.logger);
    const metrics = new FateMetrics(
      resolved.meterProvider,
      resolved.store.instanceId,
      resolved.store,
      resolved.pools,
      () => this.#membership.isFirst(),
    );
    this.#o = Object.freeze({
      ...resolved,
      logger,
      // Warnings always reach the logger, and events the metrics, whatever the caller's
      // own event handler does.
      onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => {
        record(metrics, logger, type, event);
        if (type === 'finished') this.#completions.finished((event as FateEvents['finished']).id);
        onEvent(type, event);
      },
    });
    this.#completions = new Completions(this.#o.store);
    const timeoutMs = this.#o.store.livenessTimeoutMs;
    const { pools } = this.#o;
    this.#lease = new Lease(timeoutMs - this.#o.heartbeatMs / 2, () => {
      this.#o.onEvent('warning', {
        message:
          'this instance could not renew its liveness in time; its running steps are aborted',
        error: undefined,
      });
      for (const w of this.#workers) w.abortAll('the liveness lease of this instance lapsed');
    });
    const stopping = () => this.#state !== 'running';
    const flow = new FlowMetrics(this.#o.meterProvider, this.#o.store.instanceId);
    const limits = new OpLimits(this.#o.limits, this.#o.store, flow);
    for (const t of childStepTypes)
      if (!this.#o.steps.has(t.type)) this.#o.steps.register(t as never);
    const scope = {
      store: this.#o.store,
      steps: this.#o.steps as never,
      wake: () => this.#finder.wake(),
      woken: () => flow.parentWoken(),
    };
    this.#workers = pools.all.map(
      (pool) => new Workers(this.#o, pool, this.#lease, stopping, metrics, limits, scope),
    );
    this.#schedules = new Schedules({
      store: this.#o.store,
      steps: this.#o.steps,
      retryMs: this.#o.heartbeatMs,
      metrics: flow,
      leaseValid: () => this.#lease.valid,
      onSubmitted: () => this.#finder.wake(),
      warn: (message, error) => this.#o.onEvent('warning', { message, error }),
    });
    this.#watch = new PoolWatch(pools, this.#o.poolSaturationWarnMs, this.#o.onEvent);
    this.#membership = new Membership({
      store: this.#o.store,
      source: this.#o.partitions,
      group: membershipGroup(pools.group, this.#o.scanner.strategy),
      load: () => pools.stats(),
      heartbeatMs: this.#o.heartbeatMs,
      deadReservationCheckMs: this.#o.deadReservationCheckMs,
      reconcileMs: this.#o.reconcileMs,
      ageOff: { everyMs: this.#o.ageOffCheckMs, retentionMs: this.#o.retentionMs },
      lease: this.#lease,
      logger: this.#o.logger,
      onEvent: this.#o.onEvent,
      onChange: () => this.#finder.rescan(),
      onRecovered: (ids) => void this.#finder.recovered(ids),
    });
    this.#finder = new WorkFinder({
      store: this.#o.store,
      scanner: this.#o.scanner,
      route: (op) => pools.route(op)?.queue,
      queues: pools.all.map((p) => p.queue),
      foreign: (op) => this.#watch.foreign(op, this.#membership.groups()),
      partition: () => this.#membership.current(),
      leaseValid: () => this.#lease.valid,
      backoffMinMs: this.#o.backoffMinMs,
      backoffMaxMs: this.#o.backoffMaxMs,
      pageSize: Math.max(64, 4 * this.#o.workers),
      onEvent: this.#o.onEvent,
      ...this.#claimOption(),
    });
  }

  /**
   * Claims (one store call reserving a batch for the idle workers) when the store claims
   * many natively and this engine has one pool for every op over range partitions: a
   * claim cannot filter by op or by hash.
   */
  #claimOption(): Pick<WorkFinderOptions, 'claim'> {
    const { pools, store, scanner } = this.#o;
    const [only] = pools.all;
    const workers = this.#workers[0];
    if (!store.batchedClaims || pools.all.length !== 1 || !only || only.ops || !workers) return {};
    if (scanner.strategy !== 'range') return {};
    return { claim: { queue: only.queue, signal: () => workers.runSignal } };
  }

  /** This instance's id in the store. */
  get instanceId(): string {
    return this.#o.store.instanceId;
  }

  /** Registers liveness, then starts the work finder and the workers. */
  async start(): Promise<void> {
    if (this.#state !== 'new')
      throw new FateError(FateErrorCode.CLOSED, 'a Fate instance starts once');
    this.#state = 'running';
    await this.#membership.start();
    if (this.#o.store.capabilities.wakeups) {
      this.#unsubscribe = await this.#o.store.onWakeup(() => this.#finder.wake());
    }
    this.#finder.start();
    for (const w of this.#workers) w.start();
    this.#watch.start();
    this.#schedules.start();
  }

  /**
   * Seeds one transaction per due time of the cron `pattern`, exactly once across every
   * engine that registers the same `name` (keyed by name and due time, judged by the
   * store's clock; see the README's "Schedules" for the rules). Before or after `start`.
   */
  schedule(
    name: string,
    pattern: string,
    stepFactory: StepFactory<Env>,
    options?: ScheduleOptions,
  ): void {
    this.#schedules.add(name, pattern, stepFactory, options);
  }

  /** Each pool's workers and queue now: busy, idle, queued. */
  pools(): PoolStats[] {
    return this.#o.pools.stats();
  }

  /** Seeds a transaction whose first step is `step`; wakes this instance's finder at once. */
  async seed(step: Repo<Env>, options: SeedOptions): Promise<SeedResult> {
    const [result] = await this.seedMany([{ step, ...checkSeedOptions(options) }]);
    return result as SeedResult;
  }

  /** Seeds many transactions in as few store round trips as the backend allows. */
  async seedMany(
    items: ReadonlyArray<SeedOptions & { readonly step: Repo<Env> }>,
  ): Promise<SeedResult[]> {
    if (!Array.isArray(items)) throw invalidArgument('seedMany needs an array');
    const results = await this.#o.store.seedMany(
      items.map((item) => {
        const options = checkSeedOptions(item);
        return {
          step: this.#o.steps.serialize(options.step),
          opName: options.opName,
          ...(options.key ? { key: options.key } : {}),
          ...(options.autoClean ? { autoClean: true } : {}),
          ...(options.retainMs !== undefined ? { retainMs: options.retainMs } : {}),
          ...(options.delayMs !== undefined ? { delayMs: options.delayMs } : {}),
          ...(options.runAt !== undefined ? { runAt: options.runAt } : {}),
        };
      }),
    );
    if (results.some((r) => r.created)) this.#finder.wake();
    return results;
  }

  /** Waits until the transaction is SUCCESSFUL or FAILED (or gone). */
  waitForCompletion(id: FateId, options: WaitOptions = {}): Promise<FateResult> {
    return this.#completions.wait(id, options);
  }

  /** A snapshot of the transaction. */
  read(id: FateId): Promise<FateView> {
    return this.#o.store.read(id);
  }

  /**
   * Cancels a transaction none of whose steps has ever begun (NEW or SUBMITTED — a
   * transaction an engine took but let go before its first `call`, e.g. a first step that
   * deferred itself, is SUBMITTED again): it ends FAILED and none of its steps run.
   * IN_PROGRESS (a `call` may have begun) and the rest are refused with
   * `FATE_ILLEGAL_STATUS`; `fate fail` rolls an IN_PROGRESS one back instead.
   */
  cancel(id: FateId, options: WaitOptions = {}): Promise<void> {
    return cancel(this.#o.store, id, options);
  }

  /** Deletes a transaction that is NEW, SUBMITTED, SUCCESSFUL or FAILED. */
  delete(id: FateId, options: WaitOptions = {}): Promise<void> {
    return deleteTransaction(this.#o.store, id, options);
  }

  /**
   * Stops taking work and lets running steps finish. After `timeoutMs` their signals are
   * aborted; either way this resolves only once every worker has returned, and this
   * instance stays live (heartbeating) until then, so no step ever runs here while
   * another instance could take its transaction over. Nothing is failed because of
   * shutdown; another instance resumes what is left. Then it leaves membership.
   */
  async shutdown(timeoutMs = 30_000): Promise<void> {
    if (this.#state !== 'running') return;
    this.#state = 'stopping';
    this.#watch.stop();
    await this.#schedules.stop();
    await this.#unsubscribe?.().catch(() => undefined);
    this.#o.pools.close();
    await this.#finder.stop();
    const finished = Promise.all(this.#workers.map((w) => w.done())).then(() => true);
    if (!(await Promise.race([finished, sleep(timeoutMs, false, { ref: false })]))) {
      this.#o.onEvent('warning', {
        message: `shutdown: steps still running after ${timeoutMs} ms; their signals are aborted`,
        error: undefined,
      });
      for (const w of this.#workers) w.abortAll(`shutdown ran out of time (${timeoutMs} ms)`, true);
      await finished;
    }
    await this.#membership
      .stop()
      .catch((error) =>
        this.#o.onEvent('warning', { message: 'leaving membership failed', error }),
      );
    this.#state = 'stopped';
  }
}

/** What an engine event means for the logs and the metrics. */
function record<K extends keyof FateEvents>(
  metrics: FateMetrics,
  logger: FateLogger,
  type: K,
  event: FateEvents[K],
): void {
  if (type === 'warning') {
    const e = event as FateEvents['warning'];
    metrics.warned();
    logger.warn({ ...(e.id ? { id: e.id } : {}), ...(e.error ? { err: e.error } : {}) }, e.message);
  } else if (type === 'scan') {
    const e = event as FateEvents['scan'];
    metrics.scanned(e.strategy, e.itemsRead, e.ms / 1_000);
  } else if (type === 'recovered') {
    metrics.recovered((event as FateEvents['recovered']).count);
  } else if (type === 'finished') {
    metrics.finished((event as FateEvents['finished']).status);
  }
}

function checkSeedOptions<T extends SeedOptions>(options: T): T {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('seed needs options with an opName');
  }
  return options;
}
