import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimResult } from '../contract/claim-types.js';
import type { FateStore } from '../contract/fate-store.js';
import type { IdRange } from '../contract/types.js';
import { FateErrorCode, isFateError } from '../errors.js';
import type { FateId } from '../ids.js';
import { Status } from '../status.js';
import type { ChildScope } from './child-scope.js';
import { wakeParent } from './children.js';
import { letGo } from './claimed-work.js';
import { FailureBackoff } from './failure-backoff.js';
import type { Lease } from './lease.js';
import type { FateMetrics } from './metrics.js';
import type { OpLimits, Pass } from './op-limits.js';
import type { ResolvedFateOptions } from './options.js';
import type { Pool } from './pools.js';
import { isInterrupted, type RunnerContext, runnerContext } from './run-context.js';
import { isStoreFault, runTransaction } from './runner.js';
import type { WorkQueue } from './work-queue.js';

/**
 * The worker pool: each worker takes an id from the queue, reserves it, runs it with a
 * signal of its own, and always lets go of it (unreserve, asked again while the store is
 * away). A run that fails unexpectedly (a bug, data no code path expected) is released
 * with a stored deferral that doubles each time, so nothing ever loops hot.
 */
export class Workers<Env> {
  readonly #o: ResolvedFateOptions<Env>;
  readonly #queue: WorkQueue;
  readonly #lease: Lease;
  readonly #ctx: RunnerContext<Env>;
  /**
   * One signal for every run of this pool (an AbortController per transaction costs more
   * than the rest of a short step): aborting aborts them all, and later runs get a fresh one.
   */
  #runs = new AbortController();
  readonly #backoff = new FailureBackoff();
  readonly #stop = new AbortController();
  readonly #count: number;
  readonly #limits: OpLimits;
  readonly #scope: ChildScope;
  #workers: Promise<void>[] = [];
  /** Where a finishing write may claim the next transaction from; set when the engine claims. */
  nextClaim: (() => { readonly range: IdRange | undefined } | undefined) | undefined;

  constructor(
    o: ResolvedFateOptions<Env>,
    pool: Pool,
    lease: Lease,
    stopping: () => boolean,
    metrics: FateMetrics,
    limits: OpLimits,
    scope: ChildScope,
  ) {
    this.#o = o;
    this.#limits = limits;
    this.#scope = scope;
    this.#queue = pool.queue;
    this.#count = pool.workers;
    this.#lease = lease;
    this.#ctx = runnerContext(o, lease, stopping, metrics, scope);
  }

  start(): void {
    this.#workers = Array.from({ length: this.#count }, () => this.#work());
  }

  /** Resolves when every worker returned (the queue was closed and runs ended). */
  done(): Promise<void> {
    return Promise.all([...this.#workers, this.#queue.released()]).then(() => undefined);
  }

  /** Aborts every running step's signal; with `giveUp`, releases stop being retried. */
  abortAll(reason: string, giveUp = false): void {
    const runs = this.#runs;
    this.#runs = new AbortController();
    runs.abort(new Error(reason));
    if (giveUp) this.#stop.abort(new Error(reason));
  }

  async #work(): Promise<void> {
    for (let id = await this.#queue.take(); id; id = await this.#queue.take()) {
      try {
        await this.#runOne(id);
      } finally {
        this.#queue.done(id);
      }
    }
  }

  /** The signal runs get now: a claim takes it before it is sent, as a reservation does. */
  get runSignal(): AbortSignal {
    return this.#runs.signal;
  }

  async #runOne(id: FateId): Promise<void> {
    const claimed = this.#queue.claimed(id);
    if (!this.#lease.valid) {
      // not live as far as we know: take nothing new, give back what was claimed, and keep
      // the id to be offered first once the lease is valid again
      if (claimed) await letGo(claimed.fate);
      this.#queue.putBack(id);
      return;
    }
    // The run's signal is taken before reserving: should the lease lapse while the
    // reservation is being taken, the run is aborted too (others may clear it meanwhile),
    // even when a renewal came before the reply. A claimed one's was taken before its claim.
    const signal = claimed?.signal ?? this.#runs.signal;
    let fate: FateStore | undefined = claimed?.fate;
    if (!fate) {
      try {
        fate = await this.#o.store.tryReserve(id, { start: true });
      } catch (error) {
        // an unknown outcome is cleared by the store client in the background; after a store
        // fault the id is offered again first, once the store answered the finder again
        this.#o.onEvent('warning', { message: 'reserving failed', id, error });
        if (isStoreFault(error)) this.#queue.putBack(id);
        return;
      }
    }
    if (!fate) return; // another instance has it
    let pass: Pass | undefined;
    try {
      pass = await this.#limits.enter(fate);
    } catch (error) {
      this.#o.onEvent('warning', { message: 'taking a slot of its op failed', id, error });
      await this.#settle(fate, 0);
      return;
    }
    if (!pass) return; // given back deferred: its op has no free slot (cluster-wide limit)
    const next = this.#claimNext(fate);
    let deferMs = 0;
    // halted or cut short by a cause of this instance's (a lapse, a store fault): offered
    // again first
    let again = false;
    try {
      const parent = parentOf(await fate.getInfo('internal').catch(() => undefined));
      const outcome = await runTransaction(this.#ctx, fate, signal);
      this.#backoff.succeeded(id);
      again = outcome === 'halted';
      if (outcome === Status.SUCCESSFUL || outcome === Status.FAILED) {
        this.#o.onEvent('finished', { id, status: outcome });
        if (parent) this.#wake(parent);
      }
    } catch (error) {
      again = isInterrupted(error) || isStoreFault(error);
      if (isInterrupted(error)) {
        this.#o.onEvent('warning', { message: 'a step was interrupted; it runs again', id, error });
      } else if (isStoreFault(error)) {
        this.#o.onEvent('warning', {
          message: 'store fault while running; the transaction runs again once released',
          id,
          error,
        });
      } else {
        deferMs = this.#backoff.next(id);
        this.#o.onEvent('warning', {
          message: `running the transaction failed unexpectedly; it is retried in ${deferMs} ms`,
          id,
          error,
        });
      }
    } finally {
      await this.#settle(fate, deferMs);
      await pass.leave();
    }
    if (again) this.#queue.putBack(id);
    if (next) await this.#handOut(await next.result, next.signal);
  }

  /**
   * Finish and claim next: where the store claims with the finishing write, the write
   * that ends this run also claims the next transaction for this worker (its signal taken
   * now, as a claim's is before it is sent).
   */
  #claimNext(fate: FateStore): { result: Promise<ClaimResult>; signal: AbortSignal } | undefined {
    const scope = this.nextClaim?.();
    if (!scope || !this.#o.store.batchedFinish || this.#ctx.stopping()) return undefined;
    const signal = this.#runs.signal;
    const result = this.#o.store
      .claimNext(fate, scope.range, { limit: 1 })
      .catch((): ClaimResult => ({ claimed: [], refused: [] }));
    return { result, signal };
  }

  /** Hands what the finishing write claimed to this pool's queue (let go when it cannot run). */
  async #handOut({ claimed, refused }: ClaimResult, signal: AbortSignal): Promise<void> {
    for (const { id, error } of refused) {
      this.#o.onEvent('warning', { message: 'reserving failed', id, error });
    }
    const unrun: Promise<void>[] = [];
    for (const fate of claimed) {
      if (!this.#lease.valid || !this.#queue.offerClaimed({ fate, signal }))
        unrun.push(letGo(fate));
    }
    await Promise.all(unrun);
  }

  /**
   * Makes sure this instance no longer holds `fate`: after an unknown outcome the record is
   * read again first. While the store is away this keeps trying (a reservation left with a
   * live instance would wait for its self-reconciliation); only a shutdown that ran out of
   * time gives up, leaving it to be cleared once this instance's liveness lapses.
   */
  async #settle(fate: FateStore, deferMs: number): Promise<void> {
    for (let pause = 50; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        if (fate.outcomeUnknown && !(await fate.refresh())) return;
        if (fate.isReserved) await fate.unreserve(deferMs);
        return;
      } catch (error) {
        if (isFateError(error, FateErrorCode.NOT_RESERVED)) return;
        if (!isStoreFault(error) || this.#stop.signal.aborted) {
          fate.abandon();
          this.#o.onEvent('warning', {
            message: 'could not release; left to be cleared',
            id: fate.id,
            error,
          });
          return;
        }
        await sleep(pause, undefined, { signal: this.#stop.signal }).catch(() => undefined);
      }
    }
  }

  /** A child finished: its parked parent is woken (in the background; its re-check is the backstop). */
  #wake(parent: FateId): void {
    const timeoutMs = 2 * this.#o.store.livenessTimeoutMs;
    wakeParent(this.#o.store, parent, timeoutMs).then(this.#scope.woken, (error) => {
      if (isFateError(error, FateErrorCode.NOT_FOUND)) return; // the parent was deleted
      this.#o.onEvent('warning', {
        message: 'waking the parent of a finished child failed; it wakes at its re-check',
        id: parent,
        error,
      });
    });
  }
}

function parentOf(internal: unknown): FateId | undefined {
  const v = internal as { kind?: unknown; parent?: unknown } | undefined;
  return v?.kind === 'child' && typeof v.parent === 'string' ? (v.parent as FateId) : undefined;
}
