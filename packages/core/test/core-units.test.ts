import {
  createFatesStore,
  Fate,
  FateError,
  hashPartitionOf,
  inRange,
  isFateId,
  keyedFateId,
  MemoryBackend,
  newFateId,
  openStore,
  parseFateId,
  partitionRange,
  StepRegistry,
} from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('ids', () => {
  it('makes canonical v4 ids and refuses malformed ones with a TypeError', () => {
    const id = newFateId();
    expect(isFateId(id)).toBe(true);
    expect(id[14]).toBe('4');
    expect(() => parseFateId(id.toUpperCase())).toThrow(TypeError);
    expect(() => parseFateId('x')).toThrow(TypeError);
  });

  it('derives the same keyed id for the same key, and different ones otherwise', () => {
    const a = keyedFateId({ type: 'table', key: 't1' });
    expect(keyedFateId({ type: 'table', key: 't1' })).toBe(a);
    expect(isFateId(a)).toBe(true);
    expect(keyedFateId({ type: 'table', key: 't2' })).not.toBe(a);
    // the type and key cannot be shifted into each other
    expect(keyedFateId({ type: 'ab', key: 'c' })).not.toBe(keyedFateId({ type: 'a', key: 'bc' }));
    expect(() => keyedFateId({ type: '', key: 'k' })).toThrow(TypeError);
  });
});

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

describe('step registry', () => {
  const registry = new StepRegistry<void>([
    {
      type: 'ok',
      fromState: (s) => {
        if (typeof s !== 'number') throw new Error('bad');
        return {
          type: 'ok',
          isReady: () => 0,
          call: () => undefined,
          undo: () => {},
          state: () => s,
        };
      },
    },
  ]);

  it('refuses an unknown type and a corrupt state with typed errors', () => {
    expect(() => registry.deserialize({ type: 'nope', state: 1 })).toThrow(
      expect.objectContaining({ code: 'FATE_UNKNOWN_STEP' }),
    );
    expect(() => registry.deserialize({ type: 'ok', state: 'x' })).toThrow(
      expect.objectContaining({ code: 'FATE_CORRUPT_DATA' }),
    );
    expect(registry.serialize(registry.deserialize({ type: 'ok', state: 3 }))).toEqual({
      type: 'ok',
      state: 3,
    });
    expect(() => registry.register({ type: 'ok', fromState: () => ({}) as never })).toThrow(
      TypeError,
    );
  });
});

describe('openStore', () => {
  it.each(['', 'nonsense', 'ftp://x', 'mysql://localhost/db'])(
    'refuses %j with FATE_BAD_URL',
    async (url) => {
      await expect(openStore(url)).rejects.toSatisfy(
        (e: unknown) => e instanceof FateError && e.code === 'FATE_BAD_URL',
      );
    },
  );

  it('opens memory stores, shared by name', async () => {
    const a = await openStore('memory:shared-test');
    const b = await openStore('memory:shared-test');
    const id = await a.create();
    expect((await b.read(id)).status).toBe('NEW');
    await a.close();
    await b.close();
  });
});

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

describe('liveness records for people', () => {
  it("carry an engine's pools from each heartbeat, and a provider that throws costs only them", async () => {
    const store = await createFatesStore(new MemoryBackend());
    try {
      let queued = 0;
      await store.registerInstance({
        group: '*',
        load: () => [{ name: 'default', workers: 2, busy: 1, idle: 1, queued }],
      });
      queued = 5;
      await store.heartbeat();
      const [record] = await store.instanceRecords();
      expect(record?.pools).toEqual([{ name: 'default', workers: 2, busy: 1, idle: 1, queued: 5 }]);
      const other = await createFatesStore(new MemoryBackend());
      await other.registerInstance({
        load: () => {
          throw new Error('no stats');
        },
      });
      expect((await other.instanceRecords())[0]?.pools).toBeUndefined();
      await other.close();
    } finally {
      await store.close();
    }
  });
});
