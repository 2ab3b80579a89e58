import { ServerClock } from '@fate/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The estimate of a store server's clock Redis and PostgreSQL share. This process's
// monotonic clock is driven by hand; its wall clock is faked far off to show it is unused.
let mono = 0;
beforeEach(() => {
  mono = 1_000;
  vi.spyOn(performance, 'now').mockImplementation(() => mono);
  vi.spyOn(Date, 'now').mockImplementation(() => 42);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const SERVER = 1_700_000_000_000;

describe('ServerClock', () => {
  it('refuses to answer before its first reading, rather than use this host clock', () => {
    const clock = new ServerClock();
    expect(clock.calibrated).toBe(false);
    expect(clock.ageMs).toBe(Number.POSITIVE_INFINITY);
    expect(clock.errorMs()).toBe(Number.POSITIVE_INFINITY);
    expect(() => clock.now()).toThrow(/not been read/);
  });

  it('takes the middle of the round trip and runs on the monotonic clock after it', () => {
    const clock = new ServerClock();
    clock.observe(SERVER, 1_000, 1_010); // the server read its clock somewhere in 1000..1010
    expect(clock.calibrated).toBe(true);
    mono = 1_105;
    expect(clock.now()).toBe(SERVER + 100);
    expect(clock.ageMs).toBe(100);
    expect(clock.errorMs()).toBeCloseTo(5 + 100 * 500e-6, 9);
  });

  it('keeps an exact reading over a later slow one, and takes a later exact one', () => {
    const clock = new ServerClock();
    clock.observe(SERVER, 1_000, 1_002); // error 1 ms
    clock.observe(SERVER + 5_000, 1_100, 1_300); // error 100 ms: worse, ignored
    mono = 1_301;
    expect(clock.now()).toBe(SERVER + 300);
    clock.observe(SERVER + 1_000, 1_400, 1_402); // error 1 ms, as good: taken
    mono = 1_402;
    expect(clock.now()).toBe(SERVER + 1_001);
  });

  it('lets a looser reading replace one whose error grew by drift past it', () => {
    const clock = new ServerClock();
    clock.observe(SERVER, 1_000, 1_000); // exact
    // 20 s later the kept reading may be off by 10 ms (500 ppm): an 8 ms reading is better
    clock.observe(SERVER + 20_000 + 3, 21_000, 21_016);
    mono = 21_008;
    expect(clock.now()).toBe(SERVER + 20_003);
    expect(clock.errorMs()).toBe(8);
  });

  it('takes a BIGINT as decimal text, and ignores readings that are not times', () => {
    const clock = new ServerClock();
    clock.observe(String(SERVER), 1_000, 1_000);
    clock.observe(Number.NaN, 1_000, 1_000);
    clock.observe('not a time', 1_000, 1_000);
    clock.observe(SERVER + 9, 1_010, 1_000); // answered before it was sent
    expect(clock.now()).toBe(SERVER);
  });

  it('times a call whose reply carries the server time', async () => {
    const clock = new ServerClock();
    const reply = await clock.timed(
      async () => {
        mono += 4;
        return { time: SERVER };
      },
      (r) => r.time,
    );
    expect(reply).toEqual({ time: SERVER });
    expect(clock.now()).toBe(SERVER + 2);
    expect(clock.errorMs()).toBeCloseTo(2 + 2 * 500e-6, 9);
  });
});
