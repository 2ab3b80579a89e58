import { MAX_READY_WAIT_MS } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { checkNextStep, readyWait } from '../src/engine/step-checks.js';
import { code, QuietStep } from './test-steps.js';

/** The message of what `fn` threw ('' when it threw nothing). */
function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('what steps may return', () => {
  const step = new QuietStep('probe');

  it('takes finite numbers from isReady, caps long waits at a day, and fails the rest', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(readyWait(0, step, warn)).toBe(0);
    expect(readyWait(-5, step, warn)).toBe(0);
    expect(readyWait(1.2, step, warn)).toBe(2);
    expect(readyWait(0.001, step, warn)).toBe(1);
    // a day exactly is taken as asked, without a word; a day and a bit is cut, with one
    expect(readyWait(MAX_READY_WAIT_MS, step, warn)).toBe(MAX_READY_WAIT_MS);
    expect(warnings).toEqual([]);
    expect(readyWait(MAX_READY_WAIT_MS + 0.5, step, warn)).toBe(MAX_READY_WAIT_MS);
    expect(readyWait(1e15, step, warn)).toBe(MAX_READY_WAIT_MS);
    expect(warnings).toEqual([
      `isReady of step probe asked to wait ${MAX_READY_WAIT_MS + 0.5} ms; waiting a day instead`,
      'isReady of step probe asked to wait 1000000000000000 ms; waiting a day instead',
    ]);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -Infinity, '5', undefined, null]) {
      expect(
        code(() => readyWait(bad, step, warn)),
        String(bad),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
    expect(warnings).toHaveLength(2);
  });

  it('says what isReady returned when it is not a number of ms', () => {
    const said = (value: unknown) => message(() => readyWait(value, step, () => {}));
    const rule = 'it must return a finite number of ms';
    expect(said(Number.NaN)).toBe(`isReady of step probe returned number NaN; ${rule}`);
    expect(said(-Infinity)).toBe(`isReady of step probe returned number -Infinity; ${rule}`);
    expect(said('5')).toBe(`isReady of step probe returned the string "5"; ${rule}`);
    expect(said(undefined)).toBe(`isReady of step probe returned undefined undefined; ${rule}`);
    expect(said(null)).toBe(`isReady of step probe returned object null; ${rule}`);
    expect(said(true)).toBe(`isReady of step probe returned boolean true; ${rule}`);
  });

  it('takes a step or nothing from call', () => {
    expect(checkNextStep(undefined, step)).toBeUndefined();
    expect(checkNextStep(null, step)).toBeUndefined();
    const next = new QuietStep('next');
    expect(checkNextStep(next, step)).toBe(next);
    // a plain object with the three members is a step too: no class is required
    const plain = { type: 'plain', call() {}, state() {} };
    expect(checkNextStep(plain, step)).toBe(plain);
  });

  it('fails whatever lacks one member of a step, or is no object', () => {
    const fn = () => {};
    const notSteps: unknown[] = [
      42,
      'next',
      { type: 'x' },
      { call: fn, state: fn },
      { type: 7, call: fn, state: fn },
      { type: 'x', state: fn },
      { type: 'x', call: 'not a function', state: fn },
      { type: 'x', call: fn },
      { type: 'x', call: fn, state: {} },
      Object.assign(() => {}, { type: 'x', call: fn, state: fn }),
    ];
    for (const value of notSteps) {
      expect(
        code(() => checkNextStep(value, step)),
        JSON.stringify(value),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('says what call returned when it is not a step', () => {
    const said = (value: unknown) => message(() => checkNextStep(value, step));
    const rule = 'it must return the next step or undefined';
    expect(said(42)).toBe(`call of step probe returned number 42; ${rule}`);
    expect(said('x'.repeat(80))).toBe(
      `call of step probe returned the string "${'x'.repeat(50)}"; ${rule}`,
    );
    expect(said({ type: 'x' })).toBe(
      `call of step probe returned an object (Object) that is not a step; ${rule}`,
    );
    expect(said(new Map())).toBe(
      `call of step probe returned an object (Map) that is not a step; ${rule}`,
    );
    expect(said(Object.create(null))).toBe(
      `call of step probe returned an object (no prototype) that is not a step; ${rule}`,
    );
    expect(said(fn)).toMatch(/^call of step probe returned function /);
  });
});

function fn() {}
