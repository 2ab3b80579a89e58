import { checkJson, FateErrorCode, MAX_JSON_DEPTH, toTxError } from '@fate/core';
import { describe, expect, it } from 'vitest';

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
