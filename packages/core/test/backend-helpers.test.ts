// The helpers every backend builds its URL parsing and capability declaration on.
import { declareCapabilities, readUrlParams } from '@fate/core';
import { describe, expect, it } from 'vitest';

const SPEC = {
  size: { kind: 'integer', max: 100 },
  name: { kind: 'text', pattern: /^[a-z]+$/, hint: 'lowercase letters' },
  mode: { kind: 'choice', values: ['open', 'create'] },
} as const;

function fail(why: string): never {
  throw new Error(why);
}

describe('readUrlParams', () => {
  it('reads every kind of parameter', () => {
    const { values, rest } = readUrlParams('size=7&name=abc&mode=open', SPEC, fail);
    expect(values).toEqual({ size: 7, name: 'abc', mode: 'open' });
    expect([...rest]).toEqual([]);
  });

  it.each([
    ['size=0', 'size must be an integer in 1..100, not "0"'],
    ['size=101', 'size must be an integer in 1..100'],
    ['size=1.5', 'size must be an integer'],
    ['size=-3', 'size must be an integer'],
    ['size=', 'size must be an integer'],
    ['name=ABC', 'name must be lowercase letters'],
    ['mode=edit', 'mode must be one of open, create, not "edit"'],
    ['size=1&size=2', 'size is given twice'],
    ['colour=red', 'unknown parameter "colour" (known: size, name, mode)'],
    ['toString=x', 'unknown parameter "toString"'],
  ])('refuses %j through fail', (query, message) => {
    expect(() => readUrlParams(query, SPEC, fail)).toThrow(message);
  });

  it('hands unknown parameters back when asked to keep them', () => {
    const { values, rest } = readUrlParams('sslmode=require&size=3', SPEC, fail, {
      keepUnknown: true,
    });
    expect(values).toEqual({ size: 3 });
    expect(rest.toString()).toBe('sslmode=require');
  });
});

describe('declareCapabilities', () => {
  const good = {
    maxRecordBytes: 65_536,
    sortedScan: true,
    wakeups: false,
    multiProcess: true,
    priorities: true,
  };

  it('returns the capabilities checked and frozen', () => {
    const declared = declareCapabilities(good);
    expect(declared).toEqual(good);
    expect(Object.isFrozen(declared)).toBe(true);
  });

  it.each([
    [{ ...good, maxRecordBytes: 0 }, 'maxRecordBytes'],
    [{ ...good, maxRecordBytes: Number.NaN }, 'maxRecordBytes'],
    [{ ...good, wakeups: 'yes' }, 'capabilities.wakeups must be a boolean'],
    [{ ...good, sortedScan: undefined }, 'capabilities.sortedScan must be a boolean'],
  ])('refuses %j with a TypeError naming the field', (capabilities, message) => {
    expect(() => declareCapabilities(capabilities as never)).toThrow(message);
    expect(() => declareCapabilities(capabilities as never)).toThrow(TypeError);
  });
});
