import { setTimeout as sleep } from 'node:timers/promises';
import { FateError, FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import { type FateId, type FateKey, parseFateId } from '../ids.js';
import type { JsonValue } from '../json.js';
import { FINISHED_STATUSES, Status } from '../status.js';
import type { Repo } from '../step.js';
import type { FateStore } from '../store/fate-store.js';
import type { FateView, SeedResult, TxError } from '../store/types.js';
import { Membership } from './membership.js';
import { type FateOptions, type ResolvedFateOptions, resolveFateOptions } from './options.js';
import { isStoreFault, type RunnerContext, runTransaction } from './runner.js';
import { WorkFinder } from './work-finder.js';
import { WorkQueue } from './work-queue.js';

export interface SeedOptions {
  readonly opName: string;
  /** Deduplicates: seeding the same key again returns the existing transaction. */
  readonly key?: FateKey;
  /** Delete the transaction once it finished. */
  readonly autoClean?: boolean;
}

/** How a transaction ended, as `waitForCompletion` reports it. */
export interface FateResult {
  readonly id: FateId;
  /** SUCCESSFUL or FAILED; UNKNOWN when it was deleted (e.g. auto-cleaned) before it was seen. */
  readonly status: Status;
  readonly returnValue?: JsonValue;
  readonly error?: TxError;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

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
  readonly #queue: WorkQueue;
  readonly #finder: WorkFinder;
  readonly #membership: Membership;
  #workers: Promise<void>[] = [];
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(options: FateOptions<Env>) {
    this.#o = resolveFateOptions(options);
    this.#queue = new WorkQueue(this.#o.workers);
    this.#membership = new Membership({
      store: this.#o.store,
      source: this.#o.partitions,
      heartbeatMs: this.#o.heartbeatMs ?? 1_000,
      deadReservationCheckMs: this.#o.deadReservationCheckMs,
      onEvent: this.#o.onEvent,
      onChange: () => this.#finder.rescan(),
    });
    this.#finder = new WorkFinder({
      store: this.#o.store,
      scanner: this.#o.scanner,
      queue: this.#queue,
      partition: () => this.#membership.current(),
      backoffMinMs: this.#o.backoffMinMs,
      backoffMaxMs: this.#o.backoffMaxMs,
      onEvent: this.#o.onEvent,
    });
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
    this.#workers = Array.from({ length: this.#o.workers }, () => this.#work());
  }

  /** Seeds a transaction whose first step is `step`; wakes this instance's finder at once. */
  async seed(step: Repo<Env>, options: SeedOptions): Promise<SeedResult> {
    if (typeof options !== 'object' || options === null)
      throw invalidArgument('seed needs options with an opName');
    const result = await this.#o.store.seed({
      step: this.#o.steps.serialize(step),
      opName: options.opName,
      ...(options.key ? { key: options.key } : {}),
      ...(options.autoClean ? { autoClean: true } : {}),
    });
    if (result.created) this.#finder.wake();
    return result;
  }

  /** Waits until the transaction is SUCCESSFUL or FAILED (or gone). */
  async waitForCompletion(id: FateId, options: WaitOptions = {}): Promise<FateResult> {
    parseFateId(id);
    const deadline = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
    let pause = 5;
    for (;;) {
      const view = await this.#o.store.read(id);
      if (FINISHED_STATUSES.has(view.status) || view.status === Status.UNKNOWN) return result(view);
      if (Date.now() >= deadline) {
        throw new FateError(
          FateErrorCode.TIMEOUT,
          `${id} did not finish in ${options.timeoutMs} ms (${view.status})`,
        );
      }
      if (options.signal?.aborted)
        throw new FateError(FateErrorCode.ABORTED, `waiting for ${id} was aborted`);
      await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
      pause = Math.min(pause * 2, 200);
    }
  }

  /** A snapshot of the transaction. */
  read(id: FateId): Promise<FateView> {
    return this.#o.store.read(id);
  }

  /**
   * Cancels a transaction that has not started (NEW or SUBMITTED): it ends FAILED and none
   * of its steps run. Anything else is refused with `FATE_ILLEGAL_STATUS`.
   */
  async cancel(id: FateId, options: WaitOptions = {}): Promise<void> {
    parseFateId(id);
    const view = await this.#o.store.read(id);
    refuseUnlessCancellable(view.status, id);
    const fate = await this.#o.store.reserve(id, {
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    try {
      refuseUnlessCancellable(await fate.getStatus(), id);
      await fate.commit([
        { op: 'setInfo', key: 'error', value: { message: 'cancelled', name: 'Cancelled' } },
        { op: 'setStatus', status: Status.FAILED },
        { op: 'unreserve' },
      ]);
    } finally {
      if (fate.isReserved) await fate.unreserve();
    }
  }

  /** Deletes a transaction that is NEW, SUBMITTED, SUCCESSFUL or FAILED. */
  async delete(id: FateId, options: WaitOptions = {}): Promise<void> {
    const fate = await this.#o.store.reserve(id, {
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    try {
      await fate.delete();
    } finally {
      if (fate.isReserved) await fate.unreserve();
    }
  }

  /**
   * Stops taking work, lets running steps finish (up to `timeoutMs`), unreserves what this
   * instance holds and leaves membership. Nothing is failed because of shutdown; another
   * instance resumes what is left. Steps still running at the timeout keep their
   * reservation until this instance's liveness lapses and another instance clears it.
   */
  async shutdown(timeoutMs = 30_000): Promise<void> {
    if (this.#state !== 'running') return;
    this.#state = 'stopping';
    await this.#unsubscribe?.().catch(() => undefined);
    this.#queue.close();
    await this.#finder.stop();
    const finished = Promise.all(this.#workers).then(() => true);
    const inTime = await Promise.race([finished, sleep(timeoutMs, false, { ref: false })]);
    if (!inTime)
      this.#o.onEvent('warning', {
        message: `shutdown: steps still running after ${timeoutMs} ms`,
        error: undefined,
      });
    await this.#membership
      .stop()
      .catch((error) =>
        this.#o.onEvent('warning', { message: 'leaving membership failed', error }),
      );
    this.#state = 'stopped';
  }

  #release(fate: FateStore): Promise<void> {
    return releaseWithRetry(fate, () => this.#state === 'stopped');
  }

  async #work(): Promise<void> {
    const ctx: RunnerContext<Env> = {
      env: this.#o.env,
      steps: this.#o.steps,
      idempotencyCheck: this.#o.idempotencyCheck,
      stopping: () => this.#state !== 'running',
      stepStarted: (id, type) => this.#o.onEvent('step', { id, type }),
    };
    for (let id = await this.#queue.take(); id; id = await this.#queue.take()) {
      try {
        const fate = await this.#o.store.tryReserve(id);
        if (!fate) continue; // another instance has it
        try {
          const outcome = await runTransaction(ctx, fate);
          if (outcome === Status.SUCCESSFUL || outcome === Status.FAILED) {
            this.#o.onEvent('finished', { id, status: outcome });
          }
        } finally {
          if (fate.isReserved) await this.#release(fate);
        }
      } catch (error) {
        this.#o.onEvent('warning', {
          message: isStoreFault(error)
            ? 'store fault while running; the transaction runs again once released'
            : 'running a transaction failed',
          id,
          error,
        });
      } finally {
        this.#queue.done(id);
      }
    }
  }
}

/**
 * Unreserves after a run that ended early. While the store is unavailable, retry: a
 * reservation left behind by a live instance would never be cleared by anyone else.
 */
async function releaseWithRetry(fate: FateStore, giveUp: () => boolean): Promise<void> {
  for (let pause = 50; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      await fate.unreserve();
      return;
    } catch (error) {
      if (!isFateError(error, FateErrorCode.STORE_UNAVAILABLE) || giveUp()) return;
      await sleep(pause);
    }
  }
}

function refuseUnlessCancellable(status: Status, id: FateId): void {
  if (status !== Status.NEW && status !== Status.SUBMITTED) {
    throw new FateError(
      status === Status.UNKNOWN ? FateErrorCode.NOT_FOUND : FateErrorCode.ILLEGAL_STATUS,
      `cannot cancel ${id}: it is ${status}; only NEW and SUBMITTED transactions can be cancelled`,
    );
  }
}

function result(view: FateView): FateResult {
  return {
    id: view.id,
    status: view.status,
    ...(view.info.returnValue !== undefined ? { returnValue: view.info.returnValue } : {}),
    ...(view.info.error !== undefined ? { error: view.info.error } : {}),
  };
}
