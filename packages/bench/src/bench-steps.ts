import type { FateId, JsonValue, Repo, StepData, StepType } from '@fate/core';

/** What the benchmark steps report to: the moment a step's `call` begins. */
export interface BenchEnv {
  onCall(id: FateId, type: string): void;
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
    env.onCall(id, this.type);
    return this.#left > 1 ? new NoopStep(this.#left - 1) : undefined;
  }

  undo(): void {}

  state(): JsonValue {
    return { left: this.#left };
  }
}

/**
 * A step that takes `ms` to run, so the instance running it holds its reservation that
 * long: what the recovery benchmark kills an instance in the middle of.
 */
export class SlowStep implements Repo<BenchEnv> {
  static readonly type = 'bench-slow';
  readonly type = SlowStep.type;
  readonly #ms: number;

  constructor(ms: number) {
    this.#ms = ms;
  }

  isReady(): number {
    return 0;
  }

  async call(id: FateId, env: BenchEnv): Promise<undefined> {
    env.onCall(id, this.type);
    await new Promise((r) => setTimeout(r, this.#ms));
    return undefined;
  }

  undo(): void {}

  state(): JsonValue {
    return { ms: this.#ms };
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

export const slowStepType: StepType<BenchEnv> = {
  type: SlowStep.type,
  fromState: (state) => new SlowStep(positiveInt(state, 'ms')),
};

export const BENCH_STEPS: readonly StepType<BenchEnv>[] = [noopStepType, slowStepType];

/** The stored form of a no-op transaction of `steps` steps, for seeding through a bare store. */
export const noopStepData = (steps: number): StepData => ({
  type: NoopStep.type,
  state: { left: steps },
});

export const slowStepData = (ms: number): StepData => ({ type: SlowStep.type, state: { ms } });
