// What a seed's `delayMs` / `runAt` become (`seed-deferral.ts`): ms from the insert by the
// store's clock, runAt read against this client's estimate of that clock.
import { FateErrorCode, MAX_SEED_DEFER_MS } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { seedDeferMs } from '../src/guard/seed-deferral.js';

const base = { step: { type: 's', state: {} }, opName: 'op' };
const NOW = 1_800_000_000_000;

describe('seed deferral', () => {
  it('is 0 without one, the delay rounded up, or runAt less the store clock', () => {
    expect(seedDeferMs(base, NOW)).toBe(0);
    expect(seedDeferMs({ ...base, delayMs: 0 }, NOW)).toBe(0);
    expect(seedDeferMs({ ...base, delayMs: 10.2 }, NOW)).toBe(11);
    expect(seedDeferMs({ ...base, runAt: NOW + 5_000 }, NOW)).toBe(5_000);
    expect(seedDeferMs({ ...base, runAt: new Date(NOW + 60_000) }, NOW)).toBe(60_000);
    expect(seedDeferMs({ ...base, runAt: NOW - 1 }, NOW)).toBe(0);
    expect(seedDeferMs({ ...base, delayMs: MAX_SEED_DEFER_MS }, NOW)).toBe(MAX_SEED_DEFER_MS);
  });

  it.each([
    { delayMs: -1 },
    { delayMs: Number.POSITIVE_INFINITY },
    { delayMs: '5' },
    { runAt: new Date(Number.NaN) },
    { runAt: '2030-01-01' },
    { delayMs: 1, runAt: NOW },
    { delayMs: MAX_SEED_DEFER_MS + 1 },
    { runAt: NOW + MAX_SEED_DEFER_MS + 1 },
  ])('refuses %j as FATE_INVALID_ARGUMENT', (deferral) => {
    let code: string | undefined;
    try {
      seedDeferMs({ ...base, ...(deferral as object) }, NOW);
    } catch (err) {
      code = (err as { code?: string }).code;
    }
    expect(code).toBe(FateErrorCode.INVALID_ARGUMENT);
  });
});
