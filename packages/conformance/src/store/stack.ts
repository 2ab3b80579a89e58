import { MAX_STACK_DEPTH, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { rejection, step, useFixture } from './context.js';

export function stackTests(target: ConformanceTarget): void {
  describe('stack', () => {
    const ctx = useFixture(target);

    it('keeps push, top, pop and stack order', async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      expect(await h.top()).toBeUndefined();
      for (const n of [1, 2, 3]) await h.push(step(`s${n}`, n));
      expect(await h.top()).toEqual(step('s3', 3));
      expect(await h.getStack()).toEqual([step('s1', 1), step('s2', 2), step('s3', 3)]);
      await h.setStatus(Status.FAILED_IN_PROGRESS);
      await h.pop();
      expect(await h.top()).toEqual(step('s2', 2));
      await h.unreserve();
      const other = await ctx.client();
      expect((await other.read(id)).stack).toEqual([step('s1', 1), step('s2', 2)]);
      const again = await other.reserve(id);
      expect(await again.top()).toEqual(step('s2', 2));
    });

    it(`accepts depth ${MAX_STACK_DEPTH} and refuses push ${MAX_STACK_DEPTH + 1} with FATE_STACK_OVERFLOW`, async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      for (let i = 0; i < MAX_STACK_DEPTH; i++) await h.push(step('s', i));
      const err = await rejection(h.push(step('s', MAX_STACK_DEPTH)));
      expect(err.code).toBe('FATE_STACK_OVERFLOW');
      const view = await ctx.store.read(id);
      expect(view.stack).toHaveLength(MAX_STACK_DEPTH);
      expect(view.stack.at(-1)).toEqual(step('s', MAX_STACK_DEPTH - 1));
    });

    it('refuses to pop an empty stack with FATE_STACK_EMPTY', async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.setStatus(Status.FAILED_IN_PROGRESS);
      expect((await rejection(h.pop())).code).toBe('FATE_STACK_EMPTY');
    });

    it('applies a commit of several changes atomically, or none of them', async () => {
      const id = await ctx.store.create();
      const h = await ctx.store.reserve(id);
      await h.commit([
        { op: 'push', step: step('a') },
        { op: 'setStatus', status: Status.IN_PROGRESS },
        { op: 'push', step: step('b') },
        { op: 'setInfo', key: 'opName', value: 'batch' },
      ]);
      const view = await ctx.store.read(id);
      expect(view.status).toBe(Status.IN_PROGRESS);
      expect(view.stack.map((s) => s.type)).toEqual(['a', 'b']);
      expect(view.info.opName).toBe('batch');
      // the third change is illegal: nothing of the commit may be stored
      const err = await rejection(
        h.commit([
          { op: 'push', step: step('c') },
          { op: 'setStatus', status: Status.SUCCESSFUL },
          { op: 'push', step: step('d') },
        ]),
      );
      expect(err.code).toBe('FATE_ILLEGAL_STATUS');
      expect(await ctx.store.read(id)).toEqual(view);
      expect(await h.getStatus()).toBe(Status.IN_PROGRESS);
    });
  });
}
