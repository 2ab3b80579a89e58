import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, useFixture } from './context.js';

export function livenessTests(target: ConformanceTarget): void {
  describe('instance liveness', () => {
    const ctx = useFixture(target);

    it('shows a registered instance as alive to every client', async () => {
      const a = await ctx.client({ instanceId: 'instance-b' });
      const b = await ctx.client({ instanceId: 'instance-a' });
      await a.registerInstance();
      await b.registerInstance();
      expect((await ctx.store.liveInstances()).map((i) => i.instanceId)).toEqual([
        'instance-a',
        'instance-b',
      ]);
      expect(await ctx.store.isAlive(a.lockId)).toBe(true);
      expect(await ctx.store.isAlive('instance-b')).toBe(true);
      expect(await ctx.store.isAlive('nobody')).toBe(false);
    });

    it('declares an instance dead within its timeout once its heartbeats stop', async () => {
      const a = await ctx.client({ livenessTimeoutMs: 500 });
      await a.registerInstance();
      const stopped = Date.now();
      await eventually(
        'the instance is dead',
        async () => !(await ctx.store.isAlive(a.instanceId)),
        500 + 1_500,
      );
      expect(Date.now() - stopped).toBeGreaterThanOrEqual(400);
    });

    it('keeps an instance alive past its timeout while it heartbeats', async () => {
      const a = await ctx.client({ livenessTimeoutMs: 400 });
      await a.registerInstance();
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await a.heartbeat();
        expect(await ctx.store.isAlive(a.instanceId)).toBe(true);
      }
    });

    it('removes the instance at once on a clean close', async () => {
      const a = await ctx.client();
      await a.registerInstance();
      expect(await ctx.store.isAlive(a.instanceId)).toBe(true);
      await a.close();
      expect(await ctx.store.isAlive(a.instanceId)).toBe(false);
    });
  });
}
