import { hashPartitionOf, idAfter, inRange, newFateId, partitionRange } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('partitions', () => {
  it.each([1, 2, 3, 7, 16])(
    'cuts the id space into %i contiguous ranges that cover it once',
    (total) => {
      const ids = Array.from({ length: 2_000 }, () => newFateId());
      const owners = ids.map((id) =>
        Array.from({ length: total }, (_, p) => p).filter((p) =>
          inRange(id, partitionRange({ partition: p, total })),
        ),
      );
      expect(owners.every((o) => o.length === 1)).toBe(true);
    },
  );

  it('spreads ids over hash partitions', () => {
    const counts = new Array(8).fill(0);
    for (let i = 0; i < 8_000; i++) counts[hashPartitionOf(newFateId(), 8)]++;
    for (const c of counts) expect(c).toBeGreaterThan(700);
  });
});

describe('idAfter', () => {
  it('finds the id right after a cursor, carrying over dashes', () => {
    expect(idAfter('00000000-0000-4000-8000-000000000000')).toBe(
      '00000000-0000-4000-8000-000000000001',
    );
    expect(idAfter('00000000-0000-4000-8000-00000000000f')).toBe(
      '00000000-0000-4000-8000-000000000010',
    );
    expect(idAfter('0000000f-ffff-ffff-ffff-ffffffffffff')).toBe(
      '00000010-0000-0000-0000-000000000000',
    );
    expect(idAfter('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBeUndefined();
  });
});
