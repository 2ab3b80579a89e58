import type { FateId, JsonValue, Repo, RetryPolicy, StepContext, StepType } from '@fate/core';
import type { History } from './history.js';
import type { SimProcess } from './process.js';

/** How one simulated step behaves. */
export interface StepSpec {
  /** `isReady` answers after this long (0: at once, synchronously). */
  readonly readyMs: number;
  /** The first `isReady` of this step in each process defers it this long (0: never). */
  readonly deferMs: number;
  /** `isReady` throws. */
  readonly readyThrows: boolean;
  /** How long `call` works. */
  readonly callMs: number;
  /** `call` throws at its end (the transaction fails and is rolled back). */
  readonly throws: boolean;
  /** `call` and `undo` go on when their signal is aborted. */
  readonly ignoresSignal: boolean;
  readonly undoMs: number;
  /** A retry policy of this many attempts (absent or 0: none); no jitter, so runs replay. */
  readonly retries?: number;
  /** `call` throws at its end while fewer than this many of its calls threw (any process). */
  readonly flaky?: number;
  /** The step's `timeoutMs` (absent or 0: none). */
  readonly timeoutMs?: number;
}

/** A step that is ready at once, calls for `callMs` and succeeds; `ignoresSignal` as given. */
export function plainStep(callMs: number, ignoresSignal = false): StepSpec {
  return {
    readyMs: 0,
    deferMs: 0,
    readyThrows: false,
    callMs,
    throws: false,
    ignoresSignal,
    undoMs: 0,
  };
}

/** What every step of one process gets: where it runs and where it records. */
export interface SimEnv {
  readonly process: SimProcess;
  readonly history: History;
  /** The lock id of the engine this process runs now. */
  readonly lockId: () => string;
  /** Deferrals already given, per `id:index`. */
  readonly deferred: Set<string>;
}

interface SimState {
  readonly i: number;
  readonly steps: readonly StepSpec[];
  /** What `awaitChildren` added for the step after it: each child's outcome, by name. */
  readonly children?: Readonly<Record<string, { readonly status: string }>>;
}

/**
 * A simulated step: it records in the history when its `isReady`, `call` and `undo` begin
 * and end (and in which holder), waits in virtual time, and honours or ignores its signal,
 * defers, or throws, as its spec says. Step `i` returns step `i + 1`, the last nothing.
 */
export class SimStep implements Repo<SimEnv> {
  static readonly type = 'sim';
  readonly type = SimStep.type;
  readonly #s: SimState;

  constructor(state: SimState) {
    this.#s = state;
  }

  get #spec(): StepSpec {
    return this.#s.steps[this.#s.i] as StepSpec;
  }

  get retry(): RetryPolicy | undefined {
    const attempts = this.#spec.retries ?? 0;
    return attempts > 0 ? { attempts, backoffMs: 100, jitter: 0 } : undefined;
  }

  get timeoutMs(): number | undefined {
    return this.#spec.timeoutMs || undefined;
  }

  isReady(id: FateId, env: SimEnv, context: StepContext): Promise<number> | number {
    const spec = this.#spec;
    const once = `${id}:${this.#s.i}`;
    const answer = (): number => {
      if (spec.readyThrows) throw new Error(`isReady of step ${this.#s.i} threw`);
      if (spec.deferMs > 0 && !env.deferred.has(once)) {
        env.deferred.add(once);
        return spec.deferMs;
      }
      return 0;
    };
    if (spec.readyMs === 0) return answer();
    return this.#timed(id, env, 'ready', spec.readyMs, context, true).then(answer);
  }

  async call(id: FateId, env: SimEnv, context: StepContext): Promise<Repo<SimEnv> | undefined> {
    const spec = this.#spec;
    const once = `${id}:${this.#s.i}`;
    const flaky = (env.history.thrown.get(once) ?? 0) < (spec.flaky ?? 0);
    const seen = this.#s.children;
    if (seen) {
      const h = env.history;
      const statuses = Object.fromEntries(Object.entries(seen).map(([n, o]) => [n, o.status]));
      h.add({ t: h.now(), e: 'outcomes', id, lockId: env.lockId(), seen: statuses });
    }
    await this.#timed(
      id,
      env,
      'call',
      spec.callMs,
      context,
      spec.ignoresSignal,
      spec.throws || flaky,
    );
    const next = this.#s.i + 1;
    const { steps } = this.#s;
    return next < steps.length ? new SimStep({ i: next, steps }) : undefined;
  }

  async undo(id: FateId, env: SimEnv, context: StepContext): Promise<void> {
    const spec = this.#spec;
    await this.#timed(id, env, 'undo', spec.undoMs, context, spec.ignoresSignal);
  }

  state(): JsonValue {
    return this.#s as unknown as JsonValue;
  }

  returnValue(): JsonValue | undefined {
    return this.#s.i;
  }

  async #timed(
    id: FateId,
    env: SimEnv,
    e: 'call' | 'undo' | 'ready',
    ms: number,
    context: StepContext,
    ignoresSignal: boolean,
    throws = false,
  ): Promise<void> {
    // the instant the engine starts it, before a pause of this process can hold it
    const h = env.history;
    const lockId = env.lockId();
    const index = this.#s.i;
    h.add({ t: h.now(), e, end: false, id, index, lockId });
    try {
      if (!ignoresSignal && context.signal.aborted) throw context.signal.reason;
      await env.process.gate();
      await env.process.sleep(ms, ignoresSignal ? undefined : context.signal);
    } catch (err) {
      h.add({ t: h.now(), e, end: true, id, index, lockId, outcome: 'aborted' });
      throw err;
    }
    h.add({ t: h.now(), e, end: true, id, index, lockId, outcome: throws ? 'threw' : 'ok' });
    if (throws && e === 'call')
      h.thrown.set(`${id}:${index}`, (h.thrown.get(`${id}:${index}`) ?? 0) + 1);
    if (throws) throw new Error(`${e} of step ${index} threw`);
  }
}

export const simStepType: StepType<SimEnv> = {
  type: SimStep.type,
  fromState: (state) => new SimStep(state as unknown as SimState),
};

/** The first step of a transaction of these steps. */
export function firstStep(steps: readonly StepSpec[]): SimStep {
  return new SimStep({ i: 0, steps });
}
