// WorkQueue's put-back: ids a worker took and could not run for a cause of this instance's
// (a store fault, a lapse) are kept and offered again first, in the order they were put
// back, once the finder restores them; one still held waits for the next restore; a closed
// queue keeps none.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../src/engine/work-queue.js';
import { type FateId, newFateId } from '../src/index.js';

const ids = (n: number): FateId[] => Array.from({ length: n }, () => newFateId());

describe('WorkQueue put-back', () => {
  it('offers the ids put back ahead of the queued ones, in their order, past the capacity', async () => {
    const q = new WorkQueue(2);
    const [a, b, c, d] = ids(4) as [FateId, FateId, FateId, FateId];
    expect([q.tryOffer(a), q.tryOffer(b)]).toEqual(['queued', 'queued']);
    expect([await q.take(), await q.take()]).toEqual([a, b]);
    q.putBack(a);
    q.putBack(b);
    q.done(a);
    q.done(b);
    expect([q.tryOffer(c), q.tryOffer(d)]).toEqual(['queued', 'queued']);
    expect(q.restore()).toBe(2);
    expect(q.queued).toBe(4);
    expect([await q.take(), await q.take(), await q.take(), await q.take()]).toEqual([a, b, c, d]);
    for (const id of [a, b, c, d]) q.done(id);
    expect(q.restore()).toBe(0); // restored once only
    expect(q.queued).toBe(0);
  });

  it('hands a put-back id straight to a waiting worker', async () => {
    const q = new WorkQueue(1);
    const [a] = ids(1) as [FateId];
    q.tryOffer(a);
    await q.take();
    q.putBack(a);
    q.done(a);
    const taken = q.take();
    expect(q.restore()).toBe(1);
    expect(await taken).toBe(a);
    expect(q.has(a)).toBe(true);
  });

  it('keeps an id still held by its worker for the next restore, and never offers it twice', async () => {
    const q = new WorkQueue(2);
    const [a] = ids(1) as [FateId];
    q.tryOffer(a);
    await q.take();
    q.putBack(a); // its worker is still letting go of it
    expect(q.restore()).toBe(0);
    expect(q.queued).toBe(0);
    q.done(a);
    expect(q.restore()).toBe(1);
    expect(q.queued).toBe(1);
  });

  it('keeps nothing once closed', async () => {
    const q = new WorkQueue(2);
    const [a, b] = ids(2) as [FateId, FateId];
    q.tryOffer(a);
    q.tryOffer(b);
    await q.take();
    q.putBack(a);
    q.done(a);
    q.close();
    q.putBack(b);
    expect(q.restore()).toBe(0);
    expect(q.queued).toBe(0);
  });
});
