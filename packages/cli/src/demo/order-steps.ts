import type { FateId, JsonValue, Repo, StepType } from '@fate/core';

/** What the demo's steps touch: an in-process ledger standing in for real services. */
export interface DemoEnv {
  /** Called when a step starts, so the demo can see who runs what. */
  onStep(id: FateId, step: string): void;
  onUndo(id: FateId, step: string): void;
}

interface OrderState {
  readonly order: number;
  readonly stage: number;
}

/** The four stages of an order; an order whose number ends in 7 fails at shipping. */
const STAGES = ['reserve-stock', 'charge-card', 'ship', 'notify'] as const;

const pause = (order: number, stage: number) =>
  new Promise((r) => setTimeout(r, 2 + ((order * 7 + stage * 3) % 6)));

/**
 * One stage of the demo's order saga. Each stage is idempotent (it would set, not add,
 * in a real ledger) and undoable: a failed shipment releases the stock and refunds.
 */
export class OrderStep implements Repo<DemoEnv> {
  static readonly type = 'demo-order';
  readonly type = OrderStep.type;
  readonly #s: OrderState;

  constructor(state: OrderState) {
    this.#s = state;
  }

  get name(): string {
    return STAGES[this.#s.stage] ?? 'unknown';
  }

  isReady(): number {
    return 0;
  }

  async call(id: FateId, env: DemoEnv): Promise<OrderStep | undefined> {
    env.onStep(id, this.name);
    await pause(this.#s.order, this.#s.stage);
    if (this.name === 'ship' && this.#s.order % 10 === 7) {
      throw new Error(`order ${this.#s.order}: carrier rejected the parcel`);
    }
    const next = this.#s.stage + 1;
    return next < STAGES.length ? new OrderStep({ ...this.#s, stage: next }) : undefined;
  }

  async undo(id: FateId, env: DemoEnv): Promise<void> {
    env.onUndo(id, this.name);
    await pause(this.#s.order, this.#s.stage);
  }

  state(): JsonValue {
    return { ...this.#s };
  }

  returnValue(): JsonValue {
    return { order: this.#s.order, shipped: true };
  }
}

export const orderStepType: StepType<DemoEnv> = {
  type: OrderStep.type,
  fromState(state) {
    const s = state as unknown as OrderState;
    if (!Number.isInteger(s?.order) || !Number.isInteger(s.stage) || !STAGES[s.stage]) {
      throw new Error('not an order step state');
    }
    return new OrderStep(s);
  },
};

export const firstOrderStep = (order: number) => new OrderStep({ order, stage: 0 });
