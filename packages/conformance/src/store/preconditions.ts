import { ALLOWED, type FateStore, STORED_STATUSES, type Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { rejection, step, useFixture } from './context.js';

type Op = 'push' | 'pop' | 'delete' | 'forceDelete';
const OPS: readonly Op[] = ['push', 'pop', 'delete', 'forceDelete'];

function allowed(op: Op, status: Status): boolean {
  return op === 'forceDelete' || ALLOWED[op].has(status);
}

function apply(handle: FateStore, op: Op): Promise<void> {
  return op === 'push' ? handle.push(step('next')) : handle[op]();
}

export function preconditionTests(target: ConformanceTarget): void {
  describe('store-enforced preconditions', () => {
    const ctx = useFixture(target);
    const cases = STORED_STATUSES.flatMap((status) => OPS.map((op) => ({ status, op })));

    it.each(cases)('$op in $status', async ({ status, op }) => {
      const id = await ctx.store.create();
      const handle = await ctx.store.reserve(id);
      await handle.commit([
        { op: 'push', step: step('first') },
        { op: 'setStatus', status },
      ]);
      const before = await ctx.store.read(id);
      if (allowed(op, status)) {
        await apply(handle, op);
        const after = await ctx.store.read(id);
        if (op === 'push') expect(after.stack).toHaveLength(2);
        if (op === 'pop') expect(after.stack).toHaveLength(0);
        if (op === 'delete' || op === 'forceDelete') {
          expect(after.status).toBe('UNKNOWN');
          expect(handle.isReserved).toBe(false);
        }
      } else {
        const err = await rejection(apply(handle, op));
        expect(err.code).toBe('FATE_ILLEGAL_STATUS');
        expect(await ctx.store.read(id)).toEqual(before);
        expect(handle.isReserved).toBe(true);
      }
    });
  });
}
