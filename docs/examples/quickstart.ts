import { Fate, type FateId, type JsonValue, openStore, type Repo, type StepType } from '@fate/core';

// What every step receives: your clients, connections, config.
interface Env {
  readonly inventory: Map<string, number>;
}

// A step is persisted as { type, state } before it runs, and must be idempotent:
// after a crash the current step runs again on whichever instance resumes it.
class ReserveStock implements Repo<Env> {
  readonly type = 'reserve-stock';
  constructor(readonly sku: string) {}
  isReady(): number {
    return 0; // ready now; return n > 0 to be retried in n ms
  }
  call(_id: FateId, env: Env): Repo<Env> {
    env.inventory.set(this.sku, (env.inventory.get(this.sku) ?? 10) - 1);
    return new Ship(this.sku);
  }
  undo(_id: FateId, env: Env): void {
    env.inventory.set(this.sku, (env.inventory.get(this.sku) ?? 9) + 1);
  }
  state(): JsonValue {
    return { sku: this.sku };
  }
}

class Ship implements Repo<Env> {
  readonly type = 'ship';
  constructor(readonly sku: string) {}
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined; // no next step: the transaction is SUCCESSFUL
  }
  undo(): void {}
  state(): JsonValue {
    return { sku: this.sku };
  }
  returnValue(): JsonValue {
    return { shipped: this.sku };
  }
}

const steps: StepType<Env>[] = [
  { type: 'reserve-stock', fromState: (s) => new ReserveStock((s as { sku: string }).sku) },
  { type: 'ship', fromState: (s) => new Ship((s as { sku: string }).sku) },
];

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate<Env>({ store, env: { inventory: new Map() }, steps, workers: 8 });
await fate.start();

const { id } = await fate.seed(new ReserveStock('sku-42'), { opName: 'order' });
const result = await fate.waitForCompletion(id);
console.log(result.status, result.returnValue); // SUCCESSFUL { shipped: 'sku-42' }

await fate.shutdown();
await store.close();
