import { openClient, type StoreFixture } from '@fate/conformance';
import {
  Fate,
  type FateId,
  type FatesStore,
  type JsonValue,
  type Repo,
  Status,
  type StepType,
  type StoreOptions,
} from '@fate/core';
import { afterEach, beforeEach, expect } from 'vitest';
import { type CliBackend, type CliRun, fate } from './cli-harness.js';

// A two-step saga whose second step fails and whose first step's undo fails too, so the
// rolled-back record has an error, an undo error and an empty stack.
export class ReserveStock implements Repo<null> {
  readonly type = 'reserve-stock';
  isReady = () => 0;
  call = () => new ChargeCard();
  undo(): void {
    throw new Error('stock service down: release sku-42 by hand');
  }
  state = (): JsonValue => ({ sku: 'sku-42' });
}
class ChargeCard implements Repo<null> {
  readonly type = 'charge-card';
  isReady = () => 0;
  call(): undefined {
    throw new Error('card declined');
  }
  undo(): void {}
  state = (): JsonValue => ({ amount: 42 });
}
export const STEPS: StepType<null>[] = [
  { type: 'reserve-stock', fromState: () => new ReserveStock() },
  { type: 'charge-card', fromState: () => new ChargeCard() },
];

/** Runs the saga to its end on a real engine, so the record is what an engine writes. */
export async function failedAndUndone(store: FatesStore): Promise<FateId> {
  const engine = new Fate<null>({ store, env: null, steps: STEPS, workers: 1 });
  await engine.start();
  try {
    const { id } = await engine.seed(new ReserveStock(), { opName: 'order' });
    expect((await engine.waitForCompletion(id, { timeoutMs: 20_000 })).status).toBe(Status.FAILED);
    return id;
  } finally {
    await engine.shutdown(5_000);
  }
}

export const step = (type: string, state: JsonValue = null) => ({ type, state });

/** One case's store for the admin commands: a fresh fixture, a client, and `fate <command>` on it. */
export interface AdminStore {
  readonly fixture: StoreFixture & { readonly url: string };
  /** The case's own client. */
  readonly store: FatesStore;
  /** Another client, as another process would be; closed after the case. */
  client(options?: StoreOptions): Promise<FatesStore>;
  /** Runs `fate ...args --store <the fixture's url>`. */
  admin(...args: string[]): Promise<CliRun>;
}

/** Gives every case of the calling `describe` a fresh store on `backend`, cleaned up after it. */
export function useAdminStore(backend: CliBackend): AdminStore {
  let fixture: (StoreFixture & { readonly url: string }) | undefined;
  let store: FatesStore | undefined;
  const opened: FatesStore[] = [];
  const open = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useAdminStore: used outside a case');
    return value;
  };
  const s: AdminStore = {
    get fixture() {
      return open(fixture);
    },
    get store() {
      return open(store);
    },
    async client(options) {
      const c = await openClient(open(fixture), options);
      opened.push(c);
      return c;
    },
    admin: (...args) => fate([...args, '--store', open(fixture).url]),
  };
  beforeEach(async () => {
    fixture = await backend.fixture();
    store = await s.client();
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((c) => c.close()));
    await fixture?.destroy();
    fixture = undefined;
    store = undefined;
  });
  return s;
}
