import type { FateId, JsonValue, Repo, StepData, StepType } from '@fate/core';

/** What the benchmark steps report to: the moment a step's `call` begins (and ends). */
export interface BenchEnv {
  /** `n`: which step of the transaction (1 for single-step types). */
  onCall(id: FateId, type: string, n: number): void;
  /** A `SleepStep`'s call returned (the storm logs both ends of every step). */
  onEnd?(id: FateId, n: number): void;
}

/** A step that does nothing; `left` steps remain including this one (1 = the last). */
export class NoopStep implements Repo<BenchEnv> {
  static readonly type = 'bench-noop';
  readonly type = NoopStep.type;
  readonly #left: number;

  constructor(left: number) {
    this.#left = left;
  }

  isReady(): number {
    return 0;
  }

  call(id: FateId, env: BenchEnv): NoopStep | undefined {
    env.onCall(id, this.type, 1);
    return this.#left > 1 ? new NoopStep(this.#left - 1) : undefined;
  }

  undo(): void {}

  state(): JsonValue {
    return { left: this.#left };
  }
}

interface SleepState {
  /** This step's number, from 1. */
  readonly n: number;
  readonly total: number;
  readonly ms: number;
}

/**
 * Step `n` of `total`, each sleeping `ms` and ignoring its signal (as a step that cannot be
 * interrupted): a long one is what the recovery benchmark kills an instance in the middle
 * of and the pools benchmark queues fast work behind; short ones make the storm's
 * transactions, whose both ends are logged.
 */
export class SleepStep implements Repo<BenchEnv> {
  static readonly type = 'bench-sleep';
  readonly type = SleepStep.type;
  readonly #s: SleepState;

  constructor(s: SleepState) {
    this.#s = s;
  }

  isReady(): number {
    return 0;
  }

  async call(id: FateId, env: BenchEnv): Promise<SleepStep | undefined> {
    const { n, total, ms } = this.#s;
    env.onCall(id, this.type, n);
    await new Promise((r) => setTimeout(r, ms));
    env.onEnd?.(id, n);
    return n < total ? new SleepStep({ ...this.#s, n: n + 1 }) : undefined;
  }

  undo(): void {}

  state(): JsonValue {
    return { ...this.#s };
  }
}

function positiveInt(state: JsonValue, key: string): number {
  const value = (state as Record<string, unknown> | null)?.[key];
  if (!Number.isInteger(value) || (value as number) < 0) throw new Error(`bad ${key}`);
  return value as number;
}

export const noopStepType: StepType<BenchEnv> = {
  type: NoopStep.type,
  fromState: (state) => new NoopStep(positiveInt(state, 'left')),
};

export const sleepStepType: StepType<BenchEnv> = {
  type: SleepStep.type,
  fromState: (state) =>
    new SleepStep({
      n: positiveInt(state, 'n'),
      total: positiveInt(state, 'total'),
      ms: positiveInt(state, 'ms'),
    }),
};

export const BENCH_STEPS: readonly StepType<BenchEnv>[] = [noopStepType, sleepStepType];

/** The stored form of a no-op transaction of `steps` steps, for seeding through a bare store. */
export const noopStepData = (steps: number): StepData => ({
  type: NoopStep.type,
  state: { left: steps },
});

/** The stored form of a transaction of `total` steps of `ms` each. */
export const sleepStepData = (total: number, ms: number): StepData => ({
  type: SleepStep.type,
  state: { n: 1, total, ms },
});
