import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { step, useFixture } from './context.js';

export function durabilityTests(target: ConformanceTarget): void {
  describe('durability', () => {
    const ctx = useFixture(target);

    it('keeps everything intact across close and reopen', async () => {
      const writer = await ctx.client({ instanceId: 'writer' });
      const seeded = await writer.seed({
        step: step('a', { n: 1 }),
        opName: 'op',
        key: { type: 't', key: 'k' },
      });
      const h = await writer.reserve(seeded.id);
      await h.commit([
        { op: 'setStatus', status: Status.IN_PROGRESS },
        { op: 'push', step: step('b', ['x', 2]) },
        { op: 'setInfo', key: 'returnValue', value: { ok: true } },
        { op: 'unreserve', deferMs: 60_000 },
      ]);
      const failed = await writer.create();
      const f = await writer.reserve(failed);
      await f.commit([
        { op: 'push', step: step('c') },
        { op: 'setStatus', status: Status.FAILED },
        { op: 'setInfo', key: 'error', value: { message: 'boom', stack: 'Error: boom' } },
      ]);
      const before = await Promise.all([writer.read(seeded.id), writer.read(failed)]);
      await writer.close();

      const reopened = await ctx.client({ instanceId: 'reader' });
      const after = await Promise.all([reopened.read(seeded.id), reopened.read(failed)]);
      expect(after).toEqual(before);
      expect(after[1]?.reservation?.lockId).toBe(writer.lockId);
      expect((await reopened.scanRunnable()).ids).toEqual([]);
      expect((await reopened.list()).map((s) => s.id).sort()).toEqual([seeded.id, failed].sort());
      const again = await reopened.seed({
        step: step(),
        opName: 'op',
        key: { type: 't', key: 'k' },
      });
      expect(again.created).toBe(false);
    });
  });
}
