import { describe, expect, it } from 'vitest';
import { toTxError } from '../src/engine/tx-error.js';
import {
  checkInfoKey,
  checkJson,
  checkStep,
  decodeInfo,
  decodeStack,
  decodeStatus,
  decodeView,
  encodeJson,
  isReservation,
  MAX_JSON_DEPTH,
  sameReservation,
} from '../src/guard/codec.js';
import { FateErrorCode, newFateId } from '../src/index.js';
import { code } from './test-steps.js';

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

describe('decoding what is stored', () => {
  const id = newFateId();

  it('decodes a record into a view, with a reservation only when held and priority 0 by default', () => {
    const record = {
      status: 'SUBMITTED',
      stack: '[{"type":"s","state":null}]',
      info: '{"opName":"op"}',
      reservation: null,
      deferUntil: 5,
    };
    expect(decodeView(id, record)).toStrictEqual({
      id,
      status: 'SUBMITTED',
      stack: [{ type: 's', state: null }],
      info: { opName: 'op' },
      deferUntil: 5,
      priority: 0,
    });
    const reservation = { lockId: 'l', uuid: 'u' };
    expect(decodeView(id, { ...record, reservation, priority: 2 })).toMatchObject({
      reservation,
      priority: 2,
    });
  });

  it('refuses with FATE_CORRUPT_DATA what no client could have written, naming the part', () => {
    const corrupt = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return [(err as { code?: string }).code, (err as Error).message];
      }
      return ['ok'];
    };
    expect(corrupt(() => decodeStatus(id, 'DONE'))).toEqual([
      'FATE_CORRUPT_DATA',
      `stored status of ${id} cannot be decoded`,
    ]);
    for (const stack of [
      '{',
      '{}',
      '[1]',
      '[null]',
      '[{"type":"","state":1}]',
      '[{"type":"s"}]',
      '[{"type":7,"state":1}]',
    ]) {
      expect(corrupt(() => decodeStack(id, stack))[0], stack).toBe('FATE_CORRUPT_DATA');
    }
    for (const info of ['{', '[]', 'null', '"text"', '5']) {
      expect(corrupt(() => decodeInfo(id, info))[0], info).toBe('FATE_CORRUPT_DATA');
    }
    expect(corrupt(() => decodeInfo(id, '{')).at(1)).toBe(`stored info of ${id} cannot be decoded`);
    expect(decodeStack(id, '[]')).toEqual([]);
    expect(decodeInfo(id, '{}')).toEqual({});
  });
});

describe('encoding and checking what callers give', () => {
  it('encodes JSON, refusing what has no JSON text', () => {
    expect(encodeJson('info', { a: 1 })).toBe('{"a":1}');
    for (const value of [undefined, () => 1, 10n]) {
      expect(
        code(() => encodeJson('info', value)),
        String(value),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
    expect(() => encodeJson('info', 10n)).toThrow('info is not JSON-serializable');
  });

  it('names where a value is not JSON, and what it is', () => {
    const said = (value: unknown) => {
      try {
        checkJson('state', value);
      } catch (err) {
        return (err as Error).message;
      }
      return 'ok';
    };
    expect(said({ a: [1, Number.POSITIVE_INFINITY] })).toBe('state: $.a[1] is Infinity, not JSON');
    expect(said({ d: new Date(0) })).toBe('state: $.d is a Date, not JSON');
    expect(said({ s: Symbol('x') })).toBe('state: $.s is a symbol, not JSON');
    expect(said(Object.create(Object.create(null)))).toBe(
      'state: $ is a non-plain object, not JSON',
    );
    // undefined in an object is dropped by JSON, as callers expect; in an array it is refused
    expect(said({ gone: undefined, kept: [true, 'x', null, Object.create(null)] })).toBe('ok');
  });

  it('takes a step as its type and state only, and refuses anything else', () => {
    expect(checkStep({ type: 's', state: { n: 1 }, extra: true })).toStrictEqual({
      type: 's',
      state: { n: 1 },
    });
    for (const step of [
      null,
      's',
      { type: '', state: 1 },
      { type: 's' },
      { type: 1, state: 1 },
      { type: 's', state: Number.NaN },
    ]) {
      expect(
        code(() => checkStep(step)),
        JSON.stringify(step),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('knows the info keys, reservations, and when two reservations are one', () => {
    expect(checkInfoKey('opName')).toBe('opName');
    expect(code(() => checkInfoKey('nope'))).toBe('FATE_INVALID_ARGUMENT');
    expect(isReservation({ lockId: 'l', uuid: 'u' })).toBe(true);
    for (const r of [null, 'l', { lockId: 'l' }, { uuid: 'u' }, { lockId: 1, uuid: 'u' }]) {
      expect(isReservation(r), JSON.stringify(r)).toBe(false);
    }
    const r = { lockId: 'l', uuid: 'u' };
    expect(sameReservation({ ...r }, r)).toBe(true);
    for (const other of [null, undefined, { lockId: 'l', uuid: 'v' }, { lockId: 'm', uuid: 'u' }]) {
      expect(sameReservation(other, r), JSON.stringify(other)).toBe(false);
    }
  });
});
