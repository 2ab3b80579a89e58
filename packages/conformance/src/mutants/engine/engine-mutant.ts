import type {
  FateId,
  FateStore,
  FatesStore,
  JsonValue,
  Repo,
  StepContext,
  StepType,
  TxChange,
} from '@fate/core';
import type { EngineHooks } from '../../engine/engine-hooks.js';
import type { Recorder } from '../../engine/steps.js';

/**
 * One broken promise of the engine (`Fate`), as hooks around the engines the engine suite
 * starts: a wrapped store client (its runs' handles, its client calls, its membership), wrapped
 * step types, or misread options. The engine's source is not touched.
 */
export interface EngineMutant {
  /** Short, unique, kebab-case: `undo-oldest-first`. */
  readonly name: string;
  /** Which engine promise of `mutants/README.md` it breaks (61 and up). */
  readonly promise: number;
  /** The bug, in one sentence. */
  readonly breaks: string;
  /** A control: the suite must NOT fail it (see `controls` in `engine/index.ts`). */
  readonly allowed?: boolean;
  readonly hooks: EngineHooks;
}

/**
 * `inner` with some members replaced: everything else is read from `inner` itself (so its
 * private fields work), methods bound to it. The overrides call `inner` themselves.
 */
export function overriding<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return (overrides as Record<PropertyKey, unknown>)[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Which handles a mutant wraps: a worker's runs (`tryReserve`, or `claimRunnable` where the
 * engine claims) or client calls (`reserve`).
 */
export interface HandleWrappers {
  readonly run?: (handle: FateStore) => FateStore;
  readonly client?: (handle: FateStore) => FateStore;
}

/** A store hook that wraps the handles the engine reserves. */
export function handles(wrappers: HandleWrappers): (store: FatesStore) => FatesStore {
  return (store) => {
    const { run, client } = wrappers;
    return overriding<FatesStore>(store, {
      ...(run
        ? {
            tryReserve: async (id, options) => {
              const handle = await store.tryReserve(id, options);
              return handle && run(handle);
            },
            // an engine over a store that claims many takes its runs' handles this way
            claimRunnable: async (range, options) => {
              const result = await store.claimRunnable(range, options);
              return { ...result, claimed: result.claimed.map(run) };
            },
          }
        : {}),
      ...(client
        ? { reserve: async (id, options) => client(await store.reserve(id, options)) }
        : {}),
    });
  };
}

/** A handle whose commits go through `rewrite` first (the changes it would have written). */
export function rewritingCommits(
  rewrite: (changes: readonly TxChange[], handle: FateStore) => TxChange[],
): (handle: FateStore) => FateStore {
  return (handle) =>
    overriding<FateStore>(handle, {
      commit: (changes) => handle.commit(rewrite(changes, handle)),
    });
}

/** What a step wrapper may replace; each receives the real step's. */
export interface RepoOverrides {
  isReady?(repo: Repo<Recorder>, id: FateId, env: Recorder, c: StepContext): Promise<number>;
  call?(
    repo: Repo<Recorder>,
    id: FateId,
    env: Recorder,
    c: StepContext,
  ): Promise<Repo<Recorder> | undefined>;
  undo?(repo: Repo<Recorder>, id: FateId, env: Recorder, c: StepContext): Promise<void>;
}

/** A steps hook: every step the engine rebuilds is wrapped with `overrides`. */
export function repos(
  overrides: RepoOverrides,
): (types: readonly StepType<Recorder>[]) => StepType<Recorder>[] {
  const wrap = (repo: Repo<Recorder>): Repo<Recorder> => ({
    type: repo.type,
    state: (): JsonValue => repo.state(),
    ...(repo.returnValue ? { returnValue: () => repo.returnValue?.() } : {}),
    ...(repo.retry ? { retry: repo.retry } : {}),
    ...(repo.timeoutMs !== undefined ? { timeoutMs: repo.timeoutMs } : {}),
    isReady: async (id, env, c) =>
      overrides.isReady ? overrides.isReady(repo, id, env, c) : repo.isReady(id, env, c),
    call: async (id, env, c) => {
      const next = overrides.call
        ? await overrides.call(repo, id, env, c)
        : await repo.call(id, env, c);
      return next && wrap(next);
    },
    undo: async (id, env, c) =>
      overrides.undo ? overrides.undo(repo, id, env, c) : repo.undo(id, env, c),
  });
  return (types) =>
    types.map((t) => ({ type: t.type, fromState: (state) => wrap(t.fromState(state)) }));
}
