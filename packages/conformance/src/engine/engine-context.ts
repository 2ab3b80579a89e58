import {
  createFatesStore,
  Fate,
  type FateId,
  type FateLogger,
  type FateOptions,
  type FatesStore,
  type StoreOptions,
  stderrLogger,
} from '@fate/core';
import { afterEach, beforeEach } from 'vitest';
import { FaultyBackend } from '../faults/faulty-backend.js';
import type { ConformanceTarget, StoreFixture } from '../fixture.js';
import { openClient } from '../store/context.js';
import { engineHooks } from './engine-hooks.js';
import { Recorder, scriptStepType } from './steps.js';

/** Engine settings that make tests quick: short heartbeats, short backoff. */
export const FAST = {
  heartbeatMs: 100,
  deadReservationCheckMs: 200,
  finderBackoff: { minMs: 5, maxMs: 100 },
} as const;

/**
 * The engines' warnings are expected in fault tests; they are kept here, not printed
 * (set FATE_DEBUG=1 to see them).
 */
export const testLogger: FateLogger = process.env.FATE_DEBUG
  ? stderrLogger
  : {
      error: () => undefined,
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
    };

export const FAST_STORE: StoreOptions = { livenessTimeoutMs: 1_000 };

export interface EngineContext {
  fixture: StoreFixture;
  env: Recorder;
  /** A store client; closed after the test. */
  client(options?: StoreOptions): Promise<FatesStore>;
  /** A store client whose backend injects the faults a case asks `faults` for. */
  faultyClient(options?: StoreOptions): Promise<{ store: FatesStore; faults: FaultyBackend }>;
  /** A started engine on its own client; shut down after the test. */
  engine(
    options?: Partial<FateOptions<Recorder>>,
    storeOptions?: StoreOptions,
  ): Promise<Fate<Recorder>>;
}

export function useEngines(target: ConformanceTarget): EngineContext {
  let clients: FatesStore[] = [];
  let engines: Fate<Recorder>[] = [];
  const hooks = engineHooks(target);
  const ctx = {
    async client(options?: StoreOptions) {
      const c = await openClient(ctx.fixture, options ?? FAST_STORE);
      clients.push(c);
      return c;
    },
    async faultyClient(options?: StoreOptions) {
      const faults = new FaultyBackend(ctx.fixture.backend());
      const store = await createFatesStore(faults, options ?? FAST_STORE);
      clients.push(store);
      return { store, faults };
    },
    async engine(given: Partial<FateOptions<Recorder>> = {}, storeOptions?: StoreOptions) {
      const options = hooks.options ? hooks.options(given) : given;
      const store = options.store ?? (await ctx.client(storeOptions));
      const fate = new Fate<Recorder>({
        env: ctx.env,
        steps: hooks.steps ? hooks.steps([scriptStepType]) : [scriptStepType],
        ...(options.pools ? {} : { workers: 4 }),
        logger: testLogger,
        ...FAST,
        ...options,
        store: hooks.store ? hooks.store(store) : store,
      });
      engines.push(fate);
      await fate.start();
      return fate;
    },
  } as EngineContext;
  // The fixture this test made; none when an outer hook skipped the test before it was made.
  let made: StoreFixture | undefined;
  beforeEach(async () => {
    made = await target.factory();
    ctx.fixture = made;
    ctx.env = new Recorder();
  });
  afterEach(async () => {
    const [e, c] = [engines, clients];
    engines = [];
    clients = [];
    await Promise.allSettled(e.map((f) => f.shutdown(5_000)));
    await Promise.allSettled(c.map((s) => s.close()));
    const fixture = made;
    made = undefined;
    await fixture?.destroy();
  });
  return ctx;
}

/**
 * Watches an engine's warnings for its own lease lapsing ("could not renew"): pass `onEvent`
 * to the engine, ask `lapsed()`.
 */
export function lapseWatch(): {
  readonly onEvent: NonNullable<FateOptions<Recorder>['onEvent']>;
  lapsed(): boolean;
} {
  let lapsed = false;
  return {
    onEvent: (type, event) => {
      if (type === 'warning' && 'message' in event && /could not renew/.test(event.message)) {
        lapsed = true;
      }
    },
    lapsed: () => lapsed,
  };
}

/**
 * An engine on a faulty client whose own lease is short (liveness timeout 600 ms: a lease
 * of 550 ms, heartbeats every 100 ms), watched for that lease lapsing: for cases that make
 * it lapse (failed heartbeats) at a chosen moment.
 */
export async function lapsingEngine(
  ctx: EngineContext,
  options: Partial<FateOptions<Recorder>> = {},
): Promise<{
  store: FatesStore;
  faults: FaultyBackend;
  lapse: ReturnType<typeof lapseWatch>;
  fate: Fate<Recorder>;
}> {
  const { store, faults } = await ctx.faultyClient({ livenessTimeoutMs: 600 });
  const lapse = lapseWatch();
  const fate = await ctx.engine({ store, heartbeatMs: 100, ...options, onEvent: lapse.onEvent });
  return { store, faults, lapse, fate };
}

/** Waits for every id to finish and returns the results in order. */
export function allDone(fate: Fate<Recorder>, ids: readonly FateId[], timeoutMs = 60_000) {
  return Promise.all(ids.map((id) => fate.waitForCompletion(id, { timeoutMs })));
}
