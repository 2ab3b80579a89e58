import { newFateId, Status } from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import { newRecord, rawClient, rejection, removeTree, useZooKeeper } from './zk-fixture.js';

describe('ZooKeeper liveness records and the servers’ clock', () => {
  const zk = useZooKeeper();

  it('keeps a liveness record after its writer’s session ended, for its ttl and no longer', async () => {
    const ns = zk.space();
    const [a, b] = await Promise.all([ns.backend(), ns.backend()]);
    await a.heartbeat('w1@aaaaaaaaaaaa', '{"beat":1}', 60_000);
    await a.heartbeat('w1@aaaaaaaaaaaa', '{"beat":2}', 60_000);
    await a.heartbeat('tomb@bbbbbbbbbbbb', '{"beat":9,"gone":true}', 1_500);
    const node = `${ns.chroot}/instances/l-tomb@bbbbbbbbbbbb`;
    expect((await zk.raw.exists(node, false)).ephemeralOwner).toBe('0');
    await a.close(); // the tombstone must outlive the session
    const records = await b.instances();
    expect(records.sort((x, y) => (x.lockId < y.lockId ? -1 : 1))).toEqual([
      { lockId: 'tomb@bbbbbbbbbbbb', state: '{"beat":9,"gone":true}' },
      { lockId: 'w1@aaaaaaaaaaaa', state: '{"beat":2}' },
    ]);
    // past its ttl by the servers' clock, the lister forgets it and deletes its node
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await b.instances()).map((i) => i.lockId)).toEqual(['w1@aaaaaaaaaaaa']);
    expect(await zk.raw.pathExists(node, false)).toBe(false);
  });

  it('judges ttls and deferrals by the servers’ clock, whatever this process’s wall clock says', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    await a.heartbeat('w@cccccccccccc', '{"beat":1}', 2_000);
    const id = newFateId();
    await a.insert(id, newRecord(Status.SUBMITTED));
    const r = { lockId: 'w@cccccccccccc', uuid: 'u1' };
    expect(await a.tryReserve(id, r)).toMatchObject({ reservation: r });
    // this process's wall clock jumps an hour ahead (a wrong clock, or a faked one)
    const real = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => real + 3_600_000);
    expect(Math.abs(a.now() - real)).toBeLessThan(1_000);
    expect(await a.write(id, r, { release: { deferMs: 1_000 } })).toBe(true);
    const stat = await zk.raw.exists(`${ns.chroot}/txs/${id.slice(0, 2)}/${id}`, false);
    // the deferral counts from the release's own mtime: the server's clock, no estimate
    expect((await a.read(id))?.deferUntil).toBe(new Date(stat.mtime).getTime() + 1_000);
    const scan = await a.scanRunnable(undefined, 10);
    expect(scan.ids).toEqual([]);
    expect(scan.nextDeferralAt).toBe(new Date(stat.mtime).getTime() + 1_000);
    expect((await a.instances()).map((i) => i.lockId)).toEqual(['w@cccccccccccc']);
    await new Promise((res) => setTimeout(res, 1_100));
    expect((await a.scanRunnable(undefined, 10)).ids).toEqual([id]);
  });

  it('fails promptly with FATE_STORE_UNAVAILABLE while the server hangs, and works after', async () => {
    const ns = zk.space('?sessionTimeout=4000&operationTimeout=1000');
    const a = await ns.backend();
    await a.heartbeat('patient@dddddddddddd', '{"beat":1}', 60_000);
    const frozen = zk.service.pause(2_500);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const err = await rejection(a.instances());
    expect(err.code).toBe('FATE_STORE_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(2_000);
    // it says what the connection looked like: connected, yet nothing answered for as long
    const health =
      /no answer within 1000 ms \(session 0x[0-9a-f]+, connected, last answer from ZooKeeper (\d+) ms ago, \d unanswered\)$/;
    expect(err.message).toMatch(health);
    const [, ago] = health.exec(err.message) ?? [];
    expect(Number(ago)).toBeGreaterThanOrEqual(1_000);
    await frozen;
    let live: string[] | undefined;
    for (let i = 0; i < 20 && !live; i++) {
      live = await a.instances().then(
        (l) => l.map((x) => x.lockId),
        () => undefined,
      );
      if (!live) await new Promise((r) => setTimeout(r, 200));
    }
    expect(live).toEqual(['patient@dddddddddddd']);
  });

  // Last: it expires every session of this process, the raw client's included.
  it('opens a new session after its session expired; liveness records and the wake-up watch survive it', async () => {
    const ns = zk.space('?sessionTimeout=1000');
    const a = await ns.backend();
    const b = await ns.backend();
    await a.heartbeat('survivor@eeeeeeeeeeee', '{"beat":1}', 60_000);
    let woken = 0;
    await a.subscribeWakeups(() => {
      woken++;
    });
    // Block this process (the C client pings from its event loop) past the session
    // timeout: the server, still running, expires the sessions for sure.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_000);
    const retry = async <T>(fn: () => Promise<T>): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return await fn();
        } catch (err) {
          if (i >= 10) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    // The first request of each client may still meet its old session, closing.
    expect(await retry(() => b.instances())).toEqual([
      { lockId: 'survivor@eeeeeeeeeeee', state: '{"beat":1}' },
    ]);
    await retry(() => a.heartbeat('survivor@eeeeeeeeeeee', '{"beat":2}', 60_000));
    expect(await b.instances()).toEqual([{ lockId: 'survivor@eeeeeeeeeeee', state: '{"beat":2}' }]);
    // the wake-up watch was set again on the new session
    const seen = woken;
    await b.insert(newFateId(), newRecord(Status.SUBMITTED));
    for (let i = 0; i < 50 && woken === seen; i++) await new Promise((r) => setTimeout(r, 100));
    expect(woken).toBeGreaterThan(seen);
    // removed through a fresh client: the shared one's session expired too
    const fresh = await rawClient(zk.service.url);
    try {
      await removeTree(fresh, ns.chroot);
    } finally {
      fresh.close();
    }
  });
});
