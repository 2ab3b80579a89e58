// Unit tests of the engine's small rules: pools, what steps may return, what may be stored,
// how errors are recorded, how warnings are throttled, and the tracing channels.
import { tracingChannel } from 'node:diagnostics_channel';
import {
  checkJson,
  createFatesStore,
  Fate,
  FateErrorCode,
  type FateLogger,
  type JsonValue,
  MAX_JSON_DEPTH,
  MAX_READY_WAIT_MS,
  MemoryBackend,
  type Repo,
  toTxError,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import { throttled } from '../src/engine/logger.js';
import { groupsRun, Pools } from '../src/engine/pools.js';
import { checkNextStep, readyWait } from '../src/engine/step-checks.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'ok';
};

class Noop implements Repo {
  readonly type = 'noop';
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return {};
  }
}

describe('pools', () => {
  it('routes every op to exactly one pool, the rest to the catch-all', () => {
    const pools = new Pools(
      [
        { name: 'slow', ops: ['migrate', 'compact'], workers: 2 },
        { name: 'default', workers: 8 },
      ],
      false,
    );
    expect(pools.route('migrate')?.name).toBe('slow');
    expect(pools.route('checkout')?.name).toBe('default');
    expect(pools.route('')?.name).toBe('default');
    expect(pools.group).toBe('*');
  });

  it('refuses layouts that strand or double an op', () => {
    const bad = [
      [[{ name: 'a', ops: ['x'], workers: 1 }], false], // no catch-all, not declared
      [
        [
          { name: 'a', ops: ['x'], workers: 1 },
          { name: 'b', ops: ['x'], workers: 1 },
        ],
        true,
      ],
      [
        [
          { name: 'a', workers: 1 },
          { name: 'b', workers: 1 },
        ],
        false,
      ], // two catch-alls
      [
        [
          { name: 'a', ops: [], workers: 1 },
          { name: 'b', workers: 1 },
        ],
        false,
      ],
      [[{ name: 'a', workers: 0 }], false],
      [[{ name: '', workers: 1 }], false],
      [[{ name: 'a', workers: 1 }], true], // onlyPooledOps with a catch-all
      [[], false],
    ] as const;
    for (const [specs, only] of bad) {
      expect(
        code(() => new Pools(specs as never, only)),
        JSON.stringify(specs),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('lets an engine run only its ops when it says so, and names its group by them', () => {
    const pools = new Pools([{ name: 'm', ops: ['migrate'], workers: 1 }], true);
    expect(pools.route('checkout')).toBeUndefined();
    expect(groupsRun([pools.group], 'migrate')).toBe(true);
    expect(groupsRun([pools.group], 'checkout')).toBe(false);
    expect(groupsRun(['*'], 'anything')).toBe(true);
  });
});

describe('what steps may return', () => {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  it('takes finite numbers from isReady, caps long waits at a day, and fails the rest', () => {
    expect(readyWait(0, new Noop(), warn)).toBe(0);
    expect(readyWait(-5, new Noop(), warn)).toBe(0);
    expect(readyWait(1.2, new Noop(), warn)).toBe(2);
    expect(readyWait(1e15, new Noop(), warn)).toBe(MAX_READY_WAIT_MS);
    expect(warnings).toHaveLength(1);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -Infinity, '5', undefined, null]) {
      expect(
        code(() => readyWait(bad, new Noop(), warn)),
        String(bad),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('says what call returned when it is not a step', () => {
    expect(checkNextStep(undefined, new Noop())).toBeUndefined();
    expect(checkNextStep(new Noop(), new Noop())).toBeInstanceOf(Noop);
    expect(() => checkNextStep(42, new Noop())).toThrow(/returned number 42/);
    expect(() => checkNextStep({ type: 'x' }, new Noop())).toThrow(/not a step/);
  });
});

describe('what may be stored', () => {
  it('refuses values JSON would change, naming where they are', () => {
    for (const [value, where] of [
      [{ a: () => 1 }, '$.a'],
      [{ a: [1, Number.NaN] }, '$.a[1]'],
      [{ d: new Date(0) }, '$.d'],
      [new Map(), '$'],
      [10n, '$'],
      [[undefined], '$[0]'],
    ] as const) {
      expect(() => checkJson('state', value)).toThrow(where);
    }
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    expect(() => checkJson('state', cycle)).toThrow(/cycle/);
    const shared = { n: 1 };
    expect(() => checkJson('state', { a: shared, b: shared, c: { d: null } })).not.toThrow();
  });

  it('refuses values nested too deep with a typed error, not a stack overflow', () => {
    const nest = (depth: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
      return v;
    };
    expect(() => checkJson('state', nest(MAX_JSON_DEPTH))).not.toThrow();
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      let error: unknown;
      try {
        checkJson('state', nest(depth));
      } catch (err) {
        error = err;
      }
      expect(error).toMatchObject({ code: FateErrorCode.INVALID_ARGUMENT });
      expect(String(error)).toMatch(/nested deeper than 256 levels/);
    }
  });

  it('records an error with its code and cause chain, bounded', () => {
    const root = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const err = new Error('x'.repeat(10_000), { cause: new Error('mid', { cause: root }) });
    const recorded = toTxError(err);
    expect(recorded.message.length).toBeLessThan(2_100);
    expect(recorded.cause?.message).toBe('mid');
    expect(recorded.cause?.cause?.code).toBe('ENOSPC');
    let deep: unknown = new Error('0');
    for (let i = 1; i < 10; i++) deep = new Error(String(i), { cause: deep });
    let depth = 0;
    for (let e = toTxError(deep); e.cause; e = e.cause) depth++;
    expect(depth).toBe(3);
  });
});

describe('logging', () => {
  it('writes the same warning at most once per interval, counting the rest', () => {
    const lines: Array<[object, string]> = [];
    const base: FateLogger = {
      error: () => undefined,
      warn: (f, m) => lines.push([f, m]),
      info: () => undefined,
      debug: () => undefined,
    };
    const logger = throttled(base, 60_000);
    for (let i = 0; i < 5; i++) logger.warn({}, 'store away');
    logger.warn({}, 'other');
    expect(lines.map(([, m]) => m)).toEqual(['store away', 'other']);
  });
});

describe('tracing channels', () => {
  it('traces every step call and every scan through diagnostics_channel', async () => {
    const seen: string[] = [];
    const steps = tracingChannel('fate:step');
    const scans = tracingChannel('fate:scan');
    const handlers = {
      start: (m: unknown) => seen.push(`start ${(m as { type?: string }).type ?? 'scan'}`),
      asyncEnd: (m: unknown) => seen.push(`end ${(m as { type?: string }).type ?? 'scan'}`),
    };
    steps.subscribe(handlers as never);
    scans.subscribe(handlers as never);
    const store = await createFatesStore(new MemoryBackend());
    const fate = new Fate({
      store,
      env: {},
      steps: [{ type: 'noop', fromState: () => new Noop() }],
    });
    try {
      await fate.start();
      const { id } = await fate.seed(new Noop(), { opName: 'op' });
      await fate.waitForCompletion(id, { timeoutMs: 5_000 });
      expect(seen).toContain('start noop');
      expect(seen).toContain('end noop');
      expect(seen).toContain('start scan');
    } finally {
      steps.unsubscribe(handlers as never);
      scans.unsubscribe(handlers as never);
      await fate.shutdown();
      await store.close();
    }
  });
});

describe('bad seeds through the engine', () => {
  it('refuses a missing request, a non-step and a non-JSON state with FATE_INVALID_ARGUMENT', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const fate = new Fate({
      store,
      env: {},
      steps: [{ type: 'noop', fromState: () => new Noop() }],
    });
    class Dated extends Noop {
      override state(): JsonValue {
        return { when: new Date(0) } as unknown as JsonValue;
      }
    }
    try {
      for (const call of [
        () => fate.seed(null as never, { opName: 'op' }),
        () => fate.seed(42 as never, { opName: 'op' }),
        () => fate.seed(new Noop(), null as never),
        () => fate.seed(new Dated(), { opName: 'op' }),
        () => store.seed(null as never),
        () => store.seed('x' as never),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
      }
      expect(await store.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
