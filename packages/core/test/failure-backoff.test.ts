// FailureBackoff: the deferral of a transaction whose run failed in a way that is neither
// the step's nor the store's — doubling from 1 s per failure in a row, capped at 5 min, reset
// by a normal ending, remembered for at most 10,000 ids (the least recently failed forgotten).
import { describe, expect, it } from 'vitest';
import { FailureBackoff } from '../src/engine/failure-backoff.js';
import { type FateId, newFateId } from '../src/index.js';

describe('FailureBackoff', () => {
  it('doubles from 1 s with each failure in a row, up to 5 minutes and no further', () => {
    const b = new FailureBackoff();
    const id = newFateId();
    const waits = Array.from({ length: 12 }, () => b.next(id));
    expect(waits).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000,
      300_000,
    ]);
  });

  it('counts each id on its own, and starts again from 1 s after a normal ending', () => {
    const b = new FailureBackoff();
    const [x, y] = [newFateId(), newFateId()];
    expect([b.next(x), b.next(x), b.next(y), b.next(x)]).toEqual([1_000, 2_000, 1_000, 4_000]);
    b.succeeded(x);
    expect([b.next(x), b.next(y)]).toEqual([1_000, 2_000]);
    b.succeeded(newFateId()); // an id it never saw: nothing happens
    expect(b.next(y)).toBe(4_000);
  });

  it('remembers 10,000 ids, forgetting the one whose last failure is oldest', () => {
    const b = new FailureBackoff();
    const ids: FateId[] = Array.from({ length: 10_001 }, () => newFateId());
    const [first, second, third] = ids as [FateId, FateId, FateId];
    b.next(first);
    b.next(second);
    b.next(first); // `first` failed again: now `second` is the least recent
    for (const id of ids.slice(2, 10_000)) b.next(id);
    // 10,000 remembered, `second` among them; failing again makes it the most recent
    expect(b.next(second)).toBe(2_000);
    b.next(ids[10_000] as FateId); // the 10,001st: the least recent (`first`) is forgotten
    expect(b.next(first)).toBe(1_000);
    // `first` coming back pushed out the next least recent, `third`, and nothing else
    expect(b.next(third)).toBe(1_000);
    expect(b.next(second)).toBe(4_000);
  });
});
