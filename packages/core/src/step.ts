import type { RetryPolicy } from './engine/retry-policy.js';
import { FateError, FateErrorCode, invalidArgument } from './errors.js';
import type { FateId } from './ids.js';
import type { JsonValue } from './json.js';

/** A step as stored: the registered type name and its JSON state. */
export interface StepData {
  readonly type: string;
  readonly state: JsonValue;
}

/** What the engine hands every step call besides the id and the environment. */
export interface StepContext {
  /**
   * Aborted when this instance must stop the step: shutdown ran out of time, or this
   * instance lost its liveness lease (another instance may take the transaction over).
   * A step that honours it stops early; the transaction is not failed for it, it runs
   * again (here or elsewhere).
   */
  readonly signal: AbortSignal;
}

/**
 * One step of a transaction (Accumulo's `Repo`). A step runs at least once: after a
 * crash the top step runs again, so `call` and `undo` must be idempotent.
 */
export interface Repo<Env = unknown> {
  /** The registered step type, used to rebuild the step from storage. */
  readonly type: string;
  /**
   * Milliseconds to wait before `call`: 0 (or less) = ready now. Anything but a finite
   * number fails the step; waits longer than a day are cut to a day, with a warning.
   */
  isReady(id: FateId, env: Env, context: StepContext): Promise<number> | number;
  /** Does the work; returns the next step, or nothing when the transaction is done. */
  call(
    id: FateId,
    env: Env,
    context: StepContext,
  ): Promise<Repo<Env> | undefined> | Repo<Env> | undefined;
  /**
   * Reverses what `call` did. It runs, newest first, for every step left on the stack when
   * the transaction fails — so also for a step whose `call` was cut short (a crash or a
   * lapse mid-`call`, then a failure later) and for the top step of a transaction an admin
   * failed (`fate fail`), whose `call` may not have begun: it must be safe when `call` did
   * nothing. It is NOT run for a step whose `isReady` threw while the engine knows its
   * `call` never began (pushed in the same run, or nothing of the transaction had run).
   */
  undo(id: FateId, env: Env, context: StepContext): Promise<void> | void;
  /** The state persisted with the step; `fromState` of its type must rebuild it. */
  state(): JsonValue;
  /** A readable name (defaults to `type`). */
  readonly name?: string;
  /** The transaction's result when this is the last step. */
  returnValue?(): JsonValue | undefined;
  /**
   * How a failed `call` of this step is tried again before the transaction fails (instead
   * of the engine's policy for the op, `FateOptions.retry`). See `RetryPolicy`.
   */
  readonly retry?: RetryPolicy;
  /**
   * The most one `call` may take, ms: then its signal is aborted and, once it settled, the
   * attempt fails with `FATE_STEP_TIMEOUT` (retried or not per the retry policy).
   */
  readonly timeoutMs?: number;
}

/** How a step type is rebuilt from its stored state. */
export interface StepType<Env = unknown> {
  readonly type: string;
  fromState(state: JsonValue): Repo<Env>;
}

/** The step types an engine can run, by name. */
export class StepRegistry<Env = unknown> {
  readonly #types = new Map<string, StepType<Env>>();

  constructor(types: Iterable<StepType<Env>> = []) {
    for (const t of types) this.register(t);
  }

  /** Adds a step type; registering a name twice is a programmer mistake. */
  register(type: StepType<Env>): this {
    if (
      typeof type?.type !== 'string' ||
      type.type === '' ||
      typeof type.fromState !== 'function'
    ) {
      throw invalidArgument('a step type needs a non-empty `type` and a `fromState` function');
    }
    if (this.#types.has(type.type))
      throw invalidArgument(`step type already registered: ${type.type}`);
    this.#types.set(type.type, type);
    return this;
  }

  has(type: string): boolean {
    return this.#types.has(type);
  }

  /** The stored form of a step. */
  serialize(repo: Repo<Env>): StepData {
    if (typeof repo !== 'object' || repo === null || typeof repo.state !== 'function') {
      throw invalidArgument(
        `a step is an object with a type and a state() method, got ${repo === null ? 'null' : typeof repo}`,
      );
    }
    if (!this.#types.has(repo.type)) {
      throw new FateError(FateErrorCode.UNKNOWN_STEP, `step type is not registered: ${repo.type}`);
    }
    return { type: repo.type, state: repo.state() };
  }

  /** Rebuilds a step; an unknown type or a state its type rejects is a typed error. */
  deserialize(data: StepData): Repo<Env> {
    const type = this.#types.get(data.type);
    if (!type) {
      throw new FateError(
        FateErrorCode.UNKNOWN_STEP,
        `stored step type is not registered: ${data.type}`,
      );
    }
    try {
      return type.fromState(data.state);
    } catch (cause) {
      throw new FateError(
        FateErrorCode.CORRUPT_DATA,
        `stored state of step ${data.type} cannot be rebuilt`,
        { cause },
      );
    }
  }
}
