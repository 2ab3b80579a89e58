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

/** A memory backend whose store clock the test sets. */
class ClockedBackend extends MemoryBackend {
  static at = 1_000_000;
  override now(): number {
    return ClockedBackend.at;
  }
}

describe('liveness records as people read them', () => {
  it('shows each field of a live, a lapsed and a gone holder, ordered by lock id', async () => {
    const space = `records-${Math.random()}`;
    const open = (instanceId: string, livenessTimeoutMs: number) =>
      createFatesStore(new ClockedBackend(space), { instanceId, livenessTimeoutMs });
    const reader = await open('reader', 3_000);
    const live = await open('b-live', 2_000);
    const lapsed = await open('a-lapsed', 1_000);
    const gone = await open('c-gone', 5_000);
    try {
      await live.registerInstance({
        group: 'g1',
        load: () => [{ name: 'default', workers: 4, busy: 3, idle: 1, queued: 7 }],
      });
      await lapsed.registerInstance();
      await gone.registerInstance({ group: 'g2' });
      ClockedBackend.at += 400;
      await gone.close();
      ClockedBackend.at += 1_100;
      await live.heartbeat();
      ClockedBackend.at += 250;
      const records = await reader.instanceRecords();
      expect(records).toEqual([
        {
          lockId: lapsed.lockId,
          instanceId: 'a-lapsed',
          gone: false,
          timeoutMs: 1_000,
          lastHeartbeatMsAgo: 1_750,
          current: false,
        },
        {
          lockId: live.lockId,
          instanceId: 'b-live',
          group: 'g1',
          gone: false,
          timeoutMs: 2_000,
          lastHeartbeatMsAgo: 250,
          current: true,
          pools: [{ name: 'default', workers: 4, busy: 3, idle: 1, queued: 7 }],
        },
        // a clean close leaves a tombstone: gone, never current, read with the reader's
        // own timeout (a tombstone carries none)
        {
          lockId: gone.lockId,
          instanceId: 'c-gone',
          gone: true,
          timeoutMs: 3_000,
          lastHeartbeatMsAgo: 1_350,
          current: false,
        },
      ]);
      // the boundary: a heartbeat exactly its timeout ago is no longer current; a record
      // past its housekeeping ttl (3 timeouts) is gone from the listing
      ClockedBackend.at += 1_750;
      const later = await reader.instanceRecords();
      expect(later.map((r) => r.instanceId)).not.toContain('a-lapsed');
      const edge = later.find((r) => r.instanceId === 'b-live');
      expect(edge).toMatchObject({
        instanceId: 'b-live',
        lastHeartbeatMsAgo: 2_000,
        current: false,
      });
      // a heartbeat stamped ahead of the reader's clock reads as just now, never negative
      await live.heartbeat();
      ClockedBackend.at -= 300;
      const ahead = (await reader.instanceRecords()).find((r) => r.instanceId === 'b-live');
      expect(ahead).toMatchObject({ lastHeartbeatMsAgo: 0, current: true });
    } finally {
      await Promise.all([reader, live, lapsed].map((s) => s.close()));
    }
  });
});
