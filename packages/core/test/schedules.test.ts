// Schedules (issue 25): the catch-up rules, time zones, one judgement against the store, and
// the timers, in virtual time on the memory backend. Every backend runs the engine case in
// @fate/conformance (engine/schedules.ts).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowMetrics } from '../src/engine/flow-metrics.js';
import { compileSchedule, dueTimes, nextDue } from '../src/engine/schedule-types.js';
import { Schedules } from '../src/engine/schedules.js';
import { createFatesStore, type FateId, MemoryBackend } from '../src/index.js';
import { at, tickFactory as factory, tickSteps as steps, T0 } from './test-steps.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('schedules: due times', () => {
  const every = (catchUp: 'all' | 'latest' | 'none', extra = {}) =>
    compileSchedule('s', '* * * * * *', factory, { catchUp, ...extra });

  it("catches up every missed due time with 'all', at most maxCatchUp (the most recent)", () => {
    const d = dueTimes(every('all'), T0, T0 + 3_000);
    expect(d.seed.map((t) => new Date(t).toISOString())).toEqual([
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:03.000Z',
    ]);
    expect(d).toMatchObject({ skipped: 0, through: T0 + 3_000 });
    const capped = dueTimes(every('all', { maxCatchUp: 2 }), T0, T0 + 10_000);
    expect(capped.seed).toEqual([at('2026-01-01T00:00:09Z'), at('2026-01-01T00:00:10Z')]);
    expect(capped.skipped).toBeGreaterThanOrEqual(1);
  });

  it("seeds only the latest with 'latest', and only those within graceMs with 'none'", () => {
    expect(dueTimes(every('latest'), T0, T0 + 5_000).seed).toEqual([at('2026-01-01T00:00:05Z')]);
    const none = dueTimes(every('none', { graceMs: 1_600 }), T0, T0 + 5_000);
    expect(none.seed).toEqual([at('2026-01-01T00:00:04Z'), at('2026-01-01T00:00:05Z')]);
    expect(none.skipped).toBe(3);
    expect(dueTimes(every('all'), T0, T0).seed).toEqual([]); // nothing past: nothing due
  });

  it('reads the pattern in the given time zone, UTC by default', () => {
    const from = at('2026-01-10T00:00:00Z');
    const nine = (timezone?: string) =>
      nextDue(compileSchedule('s', '0 9 * * *', factory, timezone ? { timezone } : {}), from);
    expect(new Date(nine() ?? 0).toISOString()).toBe('2026-01-10T09:00:00.000Z');
    expect(new Date(nine('Europe/Berlin') ?? 0).toISOString()).toBe('2026-01-10T08:00:00.000Z');
    expect(new Date(nine('America/New_York') ?? 0).toISOString()).toBe('2026-01-10T14:00:00.000Z');
  });

  it('refuses a bad pattern, time zone or option with FATE_INVALID_ARGUMENT', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
        return 'ok';
      } catch (err) {
        return `${(err as Error).name} ${(err as { code?: string }).code}`;
      }
    };
    const bad = 'TypeError FATE_INVALID_ARGUMENT';
    expect(code(() => compileSchedule('s', 'every day', factory))).toBe(bad);
    expect(code(() => compileSchedule('s', '* * * * *', factory, { timezone: 'Nope/Zone' }))).toBe(
      bad,
    );
    expect(
      code(() => compileSchedule('s', '* * * * *', factory, { catchUp: 'some' as 'all' })),
    ).toBe(bad);
    expect(code(() => compileSchedule('s', '* * * * *', factory, { opName: 'fate:x' }))).toBe(bad);
    expect(code(() => compileSchedule('', '* * * * *', factory))).toBe(bad);
    expect(code(() => compileSchedule('s', '* * * * *', factory, { maxCatchUp: 0 }))).toBe(bad);
  });
});

describe('schedules: timers', () => {
  it('sleeps to the next due time: an hourly schedule over 3 virtual hours costs a few calls', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(at('2026-01-01T00:30:00Z'));
    const backend = new MemoryBackend();
    let calls = 0;
    const counted = new Proxy(backend, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (prop !== 'now') calls++;
          return value.apply(target, args);
        };
      },
    });
    const store = await createFatesStore(counted);
    const submitted: FateId[] = [];
    const schedules = new Schedules({
      store,
      steps,
      retryMs: 250,
      metrics: new FlowMetrics(undefined, 'test'),
      leaseValid: () => true,
      onSubmitted: (ids) => submitted.push(...ids),
      warn: () => undefined,
    });
    schedules.add('hourly', '0 * * * *', factory);
    // a name is registered once: a second schedule under it is refused, the first kept
    expect(() => schedules.add('hourly', '30 * * * *', factory)).toThrow(
      expect.objectContaining({
        code: 'FATE_INVALID_ARGUMENT',
        message: expect.stringMatching(/already registered: hourly/),
      }),
    );
    expect(schedules.names()).toEqual(['hourly']);
    schedules.start();
    await vi.advanceTimersByTimeAsync(3 * 3_600_000 + 1_000);
    await schedules.stop();
    expect(submitted).toHaveLength(3); // 01:00, 02:00, 03:00
    expect(calls).toBeLessThan(40);
  });
});
