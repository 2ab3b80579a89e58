import { MAX_READY_WAIT_MS } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { checkNextStep, readyWait } from '../src/engine/step-checks.js';
import { code, QuietStep } from './test-steps.js';

describe('what steps may return', () => {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  it('takes finite numbers from isReady, caps long waits at a day, and fails the rest', () => {
    expect(readyWait(0, new QuietStep('noop'), warn)).toBe(0);
    expect(readyWait(-5, new QuietStep('noop'), warn)).toBe(0);
    expect(readyWait(1.2, new QuietStep('noop'), warn)).toBe(2);
    expect(readyWait(1e15, new QuietStep('noop'), warn)).toBe(MAX_READY_WAIT_MS);
    expect(warnings).toHaveLength(1);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -Infinity, '5', undefined, null]) {
      expect(
        code(() => readyWait(bad, new QuietStep('noop'), warn)),
        String(bad),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('says what call returned when it is not a step', () => {
    expect(checkNextStep(undefined, new QuietStep('noop'))).toBeUndefined();
    expect(checkNextStep(new QuietStep('noop'), new QuietStep('noop'))).toBeInstanceOf(QuietStep);
    expect(() => checkNextStep(42, new QuietStep('noop'))).toThrow(/returned number 42/);
    expect(() => checkNextStep({ type: 'x' }, new QuietStep('noop'))).toThrow(/not a step/);
  });
});
