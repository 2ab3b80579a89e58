import { INFO_KEYS, type TxInfo } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { rejection, useFixture } from './context.js';

const UNICODE = 'zoë — 日本語 — emoji 🚀 — \u0000 nul — "quotes" \\ back\\slash \n newline';

/** A large value per key: 100 KiB strings fit every backend's declared limit. */
function values(big: string): TxInfo {
  return {
    opName: `${UNICODE} ${big}`,
    autoClean: true,
    error: { message: `${UNICODE} ${big}`, name: 'Error', stack: 'Error: x\n    at y' },
    returnValue: { text: UNICODE, list: [1, 2.5, null, true, 'x'], big },
    created: 1_700_000_000_123,
    ageOff: 1_700_000_999_999,
    key: { type: 'table', key: UNICODE },
    internal: { kind: 'slot', text: UNICODE, big },
  };
}

export function infoTests(target: ConformanceTarget): void {
  describe('transaction info', () => {
    const ctx = useFixture(target);

    it.each(INFO_KEYS)('round-trips %s with a large unicode value', async (key) => {
      const big = 'x'.repeat(100 * 1024);
      const value = values(big)[key];
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.setInfo(key, value);
      expect(await h.getInfo(key)).toEqual(value);
      await h.unreserve();
      const other = await ctx.client();
      expect((await other.read(id)).info[key]).toEqual(value);
      const again = await other.reserve(id);
      expect(await again.getInfo(key)).toEqual(value);
      await again.setInfo(key, undefined);
      expect((await ctx.store.read(id)).info[key]).toBeUndefined();
    });

    it('refuses an unknown info key with a TypeError', async () => {
      const h = await ctx.store.reserve(await ctx.store.create());
      const err = await rejection(h.setInfo('bogus' as 'opName', 'x'));
      expect(err).toBeInstanceOf(TypeError);
      expect(err.code).toBe('FATE_INVALID_ARGUMENT');
    });
  });
}
