import { Status } from '@fate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newPrefix, step, useRedis } from './redis-context.js';

// Deferrals are written and judged by the Redis server's clock, inside the scripts: a
// client whose own clock is off (faked, skewed, jumping) changes nothing the store judges.
const redis = useRedis();

/** The server's clock, epoch ms, and the round trip it was read in. */
async function serverTime(): Promise<{ ms: number; rtt: number }> {
  const sent = performance.now();
  const [s, us] = await redis.admin.time();
  return { ms: Number(s) * 1_000 + Number(us) / 1_000, rtt: performance.now() - sent };
}

/** From now on this process's wall clock is `offsetMs` off. */
function fakeClock(offsetMs: number): void {
  const real = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => real() + offsetMs);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Redis server clock', () => {
  it("estimates the server's clock within a round trip, whatever this process's clock says", async () => {
    fakeClock(-3_600_000);
    const opening = performance.now();
    const backend = await redis.backend(redis.url(newPrefix()));
    // the backend's estimate is off by at most half the round trip of its best reading, all
    // taken within the open (a later reading replaces it only when better): half the open
    const error = (performance.now() - opening) / 2;
    for (let i = 0; i < 5; i++) {
      const before = backend.now();
      const { ms, rtt } = await serverTime();
      const after = backend.now();
      // the server read its clock between our two estimates, give or take their error
      expect(ms).toBeGreaterThanOrEqual(before - error - rtt - 2);
      expect(ms).toBeLessThanOrEqual(after + error + rtt + 2);
    }
  });

  it('defers by the server clock when this process runs an hour ahead', async () => {
    const store = await redis.open(redis.url(newPrefix()));
    const { id } = await store.seed({ step, opName: 'op' });
    fakeClock(+3_600_000);
    const h = await store.reserve(id);
    const at = await serverTime();
    await h.unreserve(500);
    const stored = (await store.read(id)).deferUntil;
    expect(stored - at.ms).toBeGreaterThanOrEqual(500 - at.rtt - 2);
    expect(stored - at.ms).toBeLessThan(500 + 200);
    expect(Math.abs(store.now() - at.ms)).toBeLessThan(200);
    // an hour ahead, the deferral would have passed long ago: the scan must still hide it
    const scan = await store.scanRunnable();
    expect(scan.ids).toEqual([]);
    expect(scan.nextDeferralAt).toBe(stored);
    const left = stored - (await serverTime()).ms;
    await new Promise((r) => setTimeout(r, left + 20));
    expect((await store.scanRunnable()).ids).toEqual([id]);
    expect((await store.read(id)).status).toBe(Status.SUBMITTED);
  });
});
