import type { FateView, SeedResult } from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import type { Repo } from '../step.js';
import { claimOption } from './batched-claim.js';
import { childStepTypes } from './children.js';
import { cancel, checkSeedOptions, deleteTransaction, seedRequests } from './client-calls.js';
import { Completions } from './completions.js';
import type { FateEvents } from './events.js';
import type { FateResult, SeedOptions, WaitOptions } from './fate-types.js';
import { FlowMetrics } from './flow-metrics.js';
import { Lease } from './lease.js';
import { throttled } from './logger.js';
import { Membership } from './membership.js';
import { FateMetrics } from './metrics.js';
import { OpLimits } from './op-limits.js';
import { type FateOptions, type ResolvedFateOptions, resolveFateOptions } from './options.js';
import { PoolWatch } from './pool-watch.js';
import type { PoolStats } from './pools.js';
import { membershipGroup } from './pools.js';
import { recordEvent } from './record-event.js';
import type { ScheduleOptions, StepFactory } from './schedule-types.js';
import { Schedules } from './schedules.js';
import { WorkFinder } from './work-finder.js';
import { drainWorkers } from './worker-drain.js';
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
  readonly #flow: FlowMetrics;
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
      // warnings always reach the logger and events the metrics, whatever the caller's does
      onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => {
        recordEvent(metrics, logger, type, event);
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
    this.#flow = flow;
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
      ...claimOption(this.#o, this.#workers[0]),
    });
    // finish and claim next (opt-in): a worker's finishing write claims from the finder's
    // range (none unless the finder claims: one pool for every op, range partitions)
    const [workers] = this.#workers;
    if (workers && this.#o.claimOnFinish) workers.nextClaim = () => this.#finder.claimScope();
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
    const [requests, now] = [seedRequests(this.#o.steps, items), this.#o.store.now()];
    const results = await this.#o.store.seedMany(requests); // deferrals judged as of `now`
    this.#flow.seedsDeferred(requests, results, now);
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
    // Taking work stops first, at once: a schedule tick may wait out a slow or lost reply,
    // and a finder still claiming meanwhile hands each claim to a worker that gives it back
    // at once (stopping), to be claimed again — a hot loop (REGRESSIONS.md, 2026-12-02).
    this.#o.pools.close();
    const schedules = this.#schedules.stop();
    await this.#finder.stop();
    await schedules;
    await this.#unsubscribe?.().catch(() => undefined);
    await drainWorkers(this.#workers, timeoutMs, this.#o.onEvent);
    const warn = (error: unknown) => ({ message: 'leaving membership failed', error });
    await this.#membership.stop().catch((e) => this.#o.onEvent('warning', warn(e)));
    this.#state = 'stopped';
  }
}
