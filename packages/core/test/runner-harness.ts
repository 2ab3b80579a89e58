// The step loop's test harness: `runTransaction` driven by hand on the memory store, with
// steps whose every call is logged and whose behaviour each case sets (runner.test.ts,
// run-endings.test.ts).
import type { RunnerContext } from '../src/engine/runner.js';
import {
  createFatesStore,
  type FateId,
  type FateStore,
  type FatesStore,
  type JsonValue,
  MemoryBackend,
  type Repo,
  StepRegistry,
} from '../src/index.js';

/** What each named step does; every call to one is logged as `phase:name`. */
type Behaviour = Partial<
  Record<'isReady' | 'call' | 'undo' | 'returnValue', (name: string) => unknown>
>;

export function harness() {
  const log: string[] = [];
  const behaviours = new Map<string, Behaviour>();
  const act = (phase: keyof Behaviour, name: string) => {
    log.push(`${phase}:${name}`);
    return behaviours.get(name)?.[phase]?.(name);
  };
  class Probe implements Repo {
    readonly type = 'probe';
    constructor(readonly name: string) {}
    isReady() {
      return (act('isReady', this.name) as number | undefined) ?? 0;
    }
    call() {
      return act('call', this.name) as Repo | undefined;
    }
    undo() {
      act('undo', this.name);
    }
    returnValue() {
      return behaviours.get(this.name)?.returnValue?.(this.name) as JsonValue | undefined;
    }
    state(): JsonValue {
      return { name: this.name };
    }
  }
  const steps = new StepRegistry([
    { type: 'probe', fromState: (s) => new Probe((s as { name: string }).name) },
  ]);
  const flags = { stopping: false, leaseValid: true };
  return { log, behaviours, steps, flags, Probe };
}

export type Harness = ReturnType<typeof harness>;

export function contextOf(h: Harness, store: FatesStore): RunnerContext<unknown> {
  return {
    env: {},
    steps: h.steps,
    idempotencyCheck: false,
    stopping: () => h.flags.stopping,
    leaseValid: () => h.flags.leaseValid,
    storeNow: () => store.now(),
    runStep: async (_tx, _type, _phase, fn) => fn(),
    warn: () => undefined,
    retries: () => ({
      opPolicy: () => undefined,
      retried: () => undefined,
      warn: () => undefined,
      overdue: () => undefined,
    }),
  };
}

/** A transaction of `names` (oldest first) left IN_PROGRESS and unreserved, as a crash leaves it. */
export async function inProgress(store: FatesStore, h: Harness, names: string[]): Promise<FateId> {
  const [first, ...rest] = names;
  const id = await seedProbe(store, h, first ?? '');
  const fate = (await store.tryReserve(id, { start: true })) as FateStore;
  for (const name of rest) await fate.push(h.steps.serialize(new h.Probe(name)));
  await fate.unreserve();
  return id;
}

/** A transaction of one step named `name`, seeded with `extra` options. */
export async function seedProbe(store: FatesStore, h: Harness, name: string, extra = {}) {
  const step = h.steps.serialize(new h.Probe(name));
  return (await store.seed({ step, opName: 'op', ...extra })).id;
}

export async function setUp() {
  const store = await createFatesStore(new MemoryBackend());
  const h = harness();
  return { store, h, ctx: contextOf(h, store), signal: new AbortController().signal };
}

export const reserved = async (store: FatesStore, id: FateId) =>
  (await store.reserve(id)) as FateStore;
