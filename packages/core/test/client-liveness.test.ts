import { createFatesStore, MemoryBackend } from '@fate/core';
import { describe, expect, it } from 'vitest';

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
