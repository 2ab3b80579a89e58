import { Fate, openStore } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('Fate options', () => {
  it('refuses bad options with a TypeError', async () => {
    const store = await openStore('memory:');
    for (const bad of [
      { workers: 0 },
      { workers: 1.5 },
      { partitions: { partition: 2, total: 2 } },
      { scanner: 'sideways' },
      { finderBackoff: { minMs: 100, maxMs: 10 } },
    ]) {
      expect(() => new Fate({ store, env: undefined, steps: [], ...(bad as object) })).toThrow(
        TypeError,
      );
    }
    expect(() => new Fate({ store: undefined as never, env: undefined, steps: [] })).toThrow(
      TypeError,
    );
    await store.close();
  });
});
