// Retry policies (`retry-policy.ts`): defaults, checks, which errors, and the backoff.
import { describe, expect, it } from 'vitest';
import { backoffMs, resolveOpRetries, resolveRetryPolicy } from '../src/engine/retry-policy.js';
import { FateErrorCode } from '../src/index.js';
import { code } from './test-steps.js';

describe('retry policies', () => {
  it('fills the defaults: 1 s doubling, capped at 5 min, half jitter, every error', () => {
    const p = resolveRetryPolicy({ attempts: 3 }, 'test');
    expect(p).toMatchObject({ attempts: 3, backoffMs: 1_000, factor: 2, jitter: 0.5 });
    expect(p.maxBackoffMs).toBe(300_000);
    expect(p.retryable(new Error('x'))).toBe(true);
    expect(p.retryable('not even an error')).toBe(true);
  });

  it('grows the wait exponentially up to the cap, less at most its jitter share', () => {
    const p = resolveRetryPolicy(
      { attempts: 10, backoffMs: 100, factor: 3, maxBackoffMs: 2_000, jitter: 0.5 },
      'test',
    );
    const none = () => 0;
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(p, n, none))).toEqual([
      100, 300, 900, 2_000, 2_000,
    ]);
    const most = () => 0.999_999;
    expect(backoffMs(p, 3, most)).toBe(451); // 900 less (almost) half, rounded up
    for (let i = 0; i < 200; i++) {
      const ms = backoffMs(p, 2);
      expect(ms).toBeGreaterThanOrEqual(150);
      expect(ms).toBeLessThanOrEqual(300);
    }
  });

  it('retries only the error classes given, or what the predicate accepts', () => {
    class Flaky extends Error {}
    const byClass = resolveRetryPolicy({ attempts: 2, retryOn: [Flaky, RangeError] }, 'test');
    expect(byClass.retryable(new Flaky('x'))).toBe(true);
    expect(byClass.retryable(new RangeError('x'))).toBe(true);
    expect(byClass.retryable(new Error('x'))).toBe(false);
    const byTest = resolveRetryPolicy(
      { attempts: 2, retryOn: (e) => (e as { status?: number }).status === 503 },
      'test',
    );
    expect(byTest.retryable({ status: 503 })).toBe(true);
    expect(byTest.retryable({ status: 400 })).toBe(false);
    const throwing = resolveRetryPolicy(
      {
        attempts: 2,
        retryOn: () => {
          throw new Error('bad predicate');
        },
      },
      'test',
    );
    expect(throwing.retryable(new Error('x'))).toBe(false);
  });

  it.each([
    [{ attempts: 0 }],
    [{ attempts: 1.5 }],
    [{ attempts: 1_001 }],
    [{ attempts: 2, backoffMs: -1 }],
    [{ attempts: 2, factor: 0.5 }],
    [{ attempts: 2, jitter: 2 }],
    [{ attempts: 2, maxBackoffMs: Number.POSITIVE_INFINITY }],
    [{ attempts: 2, retryOn: ['Error'] }],
    [{ attempts: 2, retryOn: [RangeError, 'Error'] }],
    [{ attempts: 2, backoffMs: Number.NaN }],
    [{}],
    [null],
  ])('refuses %j as FATE_INVALID_ARGUMENT', (policy) => {
    expect(code(() => resolveRetryPolicy(policy as never, 'test'))).toBe(
      FateErrorCode.INVALID_ARGUMENT,
    );
  });

  it('checks every policy per op when the engine is configured', () => {
    expect(resolveOpRetries(undefined).size).toBe(0);
    expect(resolveOpRetries({ a: { attempts: 2 } }).get('a')?.attempts).toBe(2);
    expect(code(() => resolveOpRetries({ a: { attempts: 0 } }))).toBe(
      FateErrorCode.INVALID_ARGUMENT,
    );
    expect(code(() => resolveOpRetries([] as never))).toBe(FateErrorCode.INVALID_ARGUMENT);
    expect(code(() => resolveOpRetries(null as never))).toBe(FateErrorCode.INVALID_ARGUMENT);
    // refused as a whole, not taken apart into policies by character
    expect(() => resolveOpRetries('x' as never)).toThrow(
      'retry is an object of retry policies by op name',
    );
  });

  it('takes every bound itself: 1,000 attempts, a day of backoff, a factor of 100, full jitter', () => {
    const day = 24 * 60 * 60_000;
    const p = resolveRetryPolicy(
      { attempts: 1_000, backoffMs: day, factor: 100, maxBackoffMs: day, jitter: 1 },
      'test',
    );
    expect(p).toMatchObject({ attempts: 1_000, backoffMs: day, factor: 100, maxBackoffMs: day });
    expect(Object.isFrozen(p)).toBe(true);
    for (const over of [{ backoffMs: day + 1 }, { maxBackoffMs: day + 1 }, { factor: 100.5 }]) {
      expect(
        code(() => resolveRetryPolicy({ attempts: 2, ...over }, 'test')),
        String(over),
      ).toBe(FateErrorCode.INVALID_ARGUMENT);
    }
    expect(() => resolveRetryPolicy('x' as never, 'retry of step s')).toThrow(
      'retry of step s: not a retry policy',
    );
  });

  it('retries only on a predicate answering true, and on the classes as they were given', () => {
    const truthy = resolveRetryPolicy({ attempts: 2, retryOn: () => 1 as never }, 'test');
    expect(truthy.retryable(new Error('x'))).toBe(false);
    const classes: (typeof Error)[] = [RangeError];
    const p = resolveRetryPolicy({ attempts: 2, retryOn: classes }, 'test');
    classes.push(TypeError); // changed afterwards: the policy keeps what it was given
    expect(p.retryable(new TypeError('x'))).toBe(false);
    expect(p.retryable(new RangeError('x'))).toBe(true);
  });
});
