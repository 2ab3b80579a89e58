// One page of a runnable scan (`scan-page.ts`) over a stub backend scan: the checks of a
// range and its options, where `after` goes (a place in the runnable order, or the range's
// start), and the page as answered.
import { describe, expect, it } from 'vitest';
import { checkRange, scanPage } from '../src/guard/scan-page.js';
import type { BackendScan, IdRange, ScanOptions } from '../src/index.js';
import { code } from './test-steps.js';

const A = '40000000-0000-4000-8000-000000000000';
const LAST = 'ffffffff-ffff-8fff-bfff-ffffffffffff';

/** Runs one page over a scan that records what it was asked and answers `page`. */
async function page(
  range: IdRange | undefined,
  options: ScanOptions | undefined,
  opts: { priorities?: boolean; page?: Partial<BackendScan> } = {},
) {
  const asked: unknown[][] = [];
  const result = await scanPage(
    range,
    options,
    async (...args) => {
      asked.push(args);
      return { ids: [], ops: [], itemsRead: 0, ...opts.page };
    },
    opts.priorities,
  );
  return { result, asked };
}

describe('scanPage', () => {
  it('asks for 1,000 ids unless told, taking 1 to 100,000 and nothing else', async () => {
    expect((await page(undefined, undefined)).asked).toEqual([[undefined, 1_000, undefined]]);
    for (const limit of [1, 100_000]) {
      expect((await page(undefined, { limit })).asked[0]?.[1]).toBe(limit);
    }
    for (const limit of [0, 100_001, 2.5]) {
      await expect(page(undefined, { limit }), String(limit)).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    }
  });

  it('sends after to a backend with priorities as a place in the runnable order', async () => {
    const range = { start: '1', end: '9' };
    const { asked } = await page(range, { after: A, afterPriority: 3 }, { priorities: true });
    expect(asked).toEqual([[range, 1_000, { priority: 3, id: A }]]);
    const dflt = await page(undefined, { after: A }, { priorities: true });
    expect(dflt.asked[0]?.[2]).toEqual({ priority: 0, id: A });
  });

  it('makes after the start of the range for a backend without, unless the range starts later', async () => {
    const next = '40000000-0000-4000-8000-000000000001';
    expect((await page(undefined, { after: A })).asked[0]?.[0]).toEqual({ start: next });
    expect((await page({ start: '3', end: '9' }, { after: A })).asked[0]?.[0]).toEqual({
      start: next,
      end: '9',
    });
    const later = { start: '5', end: '9' };
    expect((await page(later, { after: A })).asked[0]?.[0]).toBe(later);
    // after the largest id a fate id can be, the next place (no id itself) bounds the range
    expect((await page(undefined, { after: LAST })).asked[0]?.[0]).toEqual({
      start: 'ffffffff-ffff-8fff-c000-000000000000',
    });
  });

  it('refuses an after that is no id, a bad priority, and a priority without an after', async () => {
    for (const options of [
      { after: 'nope' },
      { after: A, afterPriority: 1.5 },
      { after: A, afterPriority: 1_000 },
      { afterPriority: 2 },
    ]) {
      await expect(
        page(undefined, options as ScanOptions),
        JSON.stringify(options),
      ).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    }
  });

  it('answers the page with priorities, deferral and last place filled in only as given', async () => {
    const plain = (await page(undefined, {}, { page: { ids: [A], ops: ['op'], itemsRead: 4 } }))
      .result;
    expect(plain).toMatchObject({ ids: [A], ops: ['op'], priorities: [0], itemsRead: 4 });
    expect(plain).not.toHaveProperty('nextDeferralAt');
    expect(plain).not.toHaveProperty('last');
    expect(plain.ms).toBeGreaterThanOrEqual(0);
    const full = (
      await page(
        undefined,
        {},
        {
          page: { ids: [A], ops: [''], priorities: [5], itemsRead: 1, nextDeferralAt: 77, last: A },
        },
      )
    ).result;
    expect(full).toMatchObject({ priorities: [5], nextDeferralAt: 77, last: A, lastPriority: 0 });
    const placed = (
      await page(
        undefined,
        {},
        { page: { ids: [], ops: [], itemsRead: 0, last: A, lastPriority: -3 } },
      )
    ).result;
    expect(placed.lastPriority).toBe(-3);
  });
});

describe('checkRange', () => {
  it('takes lowercase hex bounds, either absent, and refuses the rest', () => {
    for (const range of [
      undefined,
      {},
      { start: '0a' },
      { end: 'ff-0' },
      { start: '', end: 'f' },
    ]) {
      expect(
        code(() => checkRange(range as IdRange)),
        JSON.stringify(range),
      ).toBe('ok');
    }
    for (const range of [null, 'ab', { start: 'AB' }, { end: 'xyz' }, { start: 5 }]) {
      expect(
        code(() => checkRange(range as never)),
        JSON.stringify(range),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });
});
