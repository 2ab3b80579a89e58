import { randomUUID } from 'node:crypto';
import {
  type FateId,
  newFateId,
  openStore,
  partitionRange,
  type Reservation,
  Status,
} from '@fate/core';
import { createStoreBackend } from '@fate/store-zk';
import { startZooKeeper } from '@fate/test-services';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type ZooKeeper from 'zookeeper';
import { freshChroot, rawClient, rejection, removeTree, step } from './zk-fixture.js';

describe('ZkBackend against ZooKeeper', () => {
  let service: Awaited<ReturnType<typeof startZooKeeper>> | undefined;
  let raw: ZooKeeper;
  const cleanup: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    service = await startZooKeeper();
    raw = await rawClient(service.url);
  });

  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
  });

  afterAll(async () => {
    raw?.close();
    await service?.stop();
  });

  const space = (params = '') => freshChroot(service?.url ?? '', raw, cleanup, params);

  it('opens through openStore and creates the chroot with its parents', async () => {
    const parent = `/fate-test-${randomUUID()}`;
    cleanup.push(() => removeTree(raw, parent));
    const store = await openStore(`${service?.url}${parent}/deep/er`);
    cleanup.push(() => store.close());
    const { id } = await store.seed({ step: step(), opName: 'op' });
    expect((await raw.get_children(`${parent}/deep/er`, false)).sort()).toEqual([
      'instances',
      'reserved',
      'runnable',
      'txs',
      'wakeup',
    ]);
    expect(await raw.get_children(`${parent}/deep/er/txs/${id.slice(0, 2)}`, false)).toEqual([id]);
  });

  it('reads only the buckets of a range: a quarter partition reads a quarter', async () => {
    const zk = space();
    const store = await zk.store();
    const ids = await Promise.all(
      Array.from(
        { length: 200 },
        async () => (await store.seed({ step: step(), opName: 'op' })).id,
      ),
    );
    const full = await store.scanRunnable();
    expect(full.ids).toEqual([...ids].sort());
    // one marker name listed and one record read per runnable transaction, nothing else
    expect(full.itemsRead).toBe(2 * ids.length);

    const range = partitionRange({ partition: 1, total: 4 });
    const inQuarter = ids.filter((id) => id >= '40' && id < '80');
    const quarter = await store.scanRunnable(range);
    expect(quarter.ids).toEqual([...inQuarter].sort());
    expect(quarter.itemsRead).toBe(2 * inQuarter.length);

    // a range inside one marker bucket (first hex digit) lists that bucket's markers and
    // reads only the records in range
    const sample = [...ids].sort()[100] as FateId;
    const bucket = sample.slice(0, 2);
    const sameMarkerBucket = ids.filter((id) => id[0] === sample[0]);
    const narrow = await store.scanRunnable({ start: sample, end: `${bucket}ffffffff` });
    const expected = ids.filter((id) => id.startsWith(bucket) && id >= sample).sort();
    expect(narrow.ids).toEqual(expected);
    expect(narrow.itemsRead).toBe(sameMarkerBucket.length + expected.length);
  });

  it('drops and repairs markers: finished transactions cost scans nothing', async () => {
    const zk = space();
    const store = await zk.store();
    const backend = await zk.backend();
    const { id } = await store.seed({ step: step(), opName: 'op' });
    const marker = `${zk.chroot}/runnable/${id.slice(0, 1)}/${id}`;
    expect(await raw.pathExists(marker, false)).toBe(true);
    const h = await store.reserve(id);
    await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
    expect(await raw.pathExists(marker, false)).toBe(false);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 0 });

    // A marker newer than its record's last write may be a writer's that is about to make
    // the record runnable: scans keep it (costing one stale check) ...
    await raw.create(marker, '', 0);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 3 });
    expect(await raw.pathExists(marker, false)).toBe(true);
    // ... and once the record was written after it, the marker is stale for sure: repaired.
    await backend.corrupt(id, 'info');
    expect(await store.scanRunnable()).toMatchObject({ ids: [] });
    expect(await raw.pathExists(marker, false)).toBe(false);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 0 });
  });

  it('retries on version conflicts: concurrent writers never lose an update', async () => {
    const zk = space();
    const backends = await Promise.all([zk.backend(), zk.backend(), zk.backend()]);
    const id = newFateId();
    await backends[0]?.insert(id, { status: Status.IN_PROGRESS, stack: '[]', info: '{"n":0}' });
    let wins = 0;
    // 3 sessions × 4 loops race to reserve the one record; each winner increments the
    // counter in its info and releases. Reserving is a version-checked compare-and-set,
    // so losers of a race reread and see 'held' instead of overwriting.
    await Promise.all(
      backends.flatMap((backend, b) =>
        [0, 1, 2, 3].map(async (loop) => {
          for (let i = 0; i < 15; i++) {
            const reservation: Reservation = {
              lockId: `b${b}`,
              uuid: `${loop}-${i}-${randomUUID()}`,
            };
            const got = await backend.tryReserve(id, reservation);
            if (typeof got !== 'object') continue;
            wins++;
            const n = (JSON.parse(got.info) as { n: number }).n;
            const ok = await backend.write(id, reservation, {
              info: JSON.stringify({ n: n + 1 }),
              release: { deferUntil: 0 },
            });
            expect(ok).toBe(true);
          }
        }),
      ),
    );
    const record = await backends[0]?.read(id);
    expect(wins).toBeGreaterThan(0);
    expect(JSON.parse(record?.info ?? '{}')).toEqual({ n: wins });
    expect(record?.reservation).toBeNull();
  });

  it('reserves what a scan found in one round trip, and loses cleanly when the copy is stale', async () => {
    const zk = space();
    const [a, b] = await Promise.all([zk.backend(), zk.backend()]);
    const [first, second] = [newFateId(), newFateId()];
    for (const id of [first, second]) {
      await a.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}' });
    }
    expect((await a.scanRunnable(undefined, Date.now())).ids).toEqual([first, second].sort());
    // b takes `second` behind a's back: a's scanned copy of it is stale now
    const theirs: Reservation = { lockId: 'b', uuid: randomUUID() };
    expect(await b.tryReserve(second, theirs)).toMatchObject({ reservation: theirs });
    const mine: Reservation = { lockId: 'a', uuid: randomUUID() };
    expect(await a.tryReserve(first, mine)).toMatchObject({ reservation: mine });
    expect(await a.tryReserve(second, { lockId: 'a', uuid: randomUUID() })).toBe('held');
    const held = (await b.reservations()).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(held).toEqual(
      [
        { id: first, reservation: mine },
        { id: second, reservation: theirs },
      ].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    // one marker per live reservation, none left by the lost attempt
    expect((await raw.get_children(`${zk.chroot}/reserved`, false)).sort()).toEqual(
      [`${first}+${mine.uuid}`, `${second}+${theirs.uuid}`].sort(),
    );
    expect(await a.write(first, mine, { release: { deferUntil: 0 } })).toBe(true);
    expect(await raw.get_children(`${zk.chroot}/reserved`, false)).toEqual([
      `${second}+${theirs.uuid}`,
    ]);
  });

  it('fences a write whose reservation changed between its read and its write', async () => {
    const zk = space();
    const [a, b] = await Promise.all([zk.backend(), zk.backend()]);
    const id = newFateId();
    await a.insert(id, { status: Status.NEW, stack: '[]', info: '{}' });
    const mine: Reservation = { lockId: 'a', uuid: randomUUID() };
    expect(typeof (await a.tryReserve(id, mine))).toBe('object');
    // hammer the record with writes from a while b clears a's reservation: once it is
    // cleared, every later write of a must be refused, and none may resurrect the reservation
    const writes = Array.from({ length: 40 }, (_, i) =>
      a.write(id, mine, { info: JSON.stringify({ i }) }),
    );
    const cleared = b.clearReservation(id, mine);
    const results = await Promise.all(writes);
    expect(await cleared).toBe(true);
    const after = await a.read(id);
    expect(after?.reservation).toBeNull();
    expect(await a.write(id, mine, { info: '{"late":true}' })).toBe(false);
    // what is stored is one of the writes that reported success (or the original if none did)
    const accepted = results.flatMap((ok, i) => (ok ? [JSON.stringify({ i })] : []));
    expect(accepted.length ? accepted : ['{}']).toContain(after?.info);
  });

  it('refuses a record too large for a znode with FATE_PAYLOAD_TOO_LARGE, leaving the transaction intact', async () => {
    const zk = space();
    const backend = await zk.backend();
    const id = newFateId();
    const huge = JSON.stringify(['x'.repeat(1_048_576)]);
    expect(
      (await rejection(backend.insert(id, { status: Status.SUBMITTED, stack: huge, info: '{}' })))
        .code,
    ).toBe('FATE_PAYLOAD_TOO_LARGE');
    expect(await backend.read(id)).toBeUndefined();
    expect((await backend.scanRunnable(undefined, Date.now())).ids).toEqual([]);

    await backend.insert(id, { status: Status.NEW, stack: '[]', info: '{}' });
    const r: Reservation = { lockId: 'me', uuid: randomUUID() };
    const before = await backend.tryReserve(id, r);
    const started = Date.now();
    expect((await rejection(backend.write(id, r, { stack: huge }))).code).toBe(
      'FATE_PAYLOAD_TOO_LARGE',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await backend.read(id)).toEqual(before);
    // the session is unharmed
    expect(await backend.write(id, r, { status: Status.IN_PROGRESS })).toBe(true);
  });

  it('stores a record at the declared limit, with a long lock id, under a long chroot', async () => {
    const zk = space();
    const deep = `${zk.url}/${'c'.repeat(200)}`;
    const backend = createStoreBackend(deep);
    cleanup.push(() => backend.close());
    await backend.open();
    const limit = backend.capabilities.maxRecordBytes;
    const info = JSON.stringify({ opName: 'op' });
    const frame = Buffer.byteLength(JSON.stringify([{ type: 's', state: '' }]));
    const padded = JSON.stringify([{ type: 's', state: 'x'.repeat(limit - frame - info.length) }]);
    expect(Buffer.byteLength(padded) + info.length).toBe(limit);
    const id = newFateId();
    expect(await backend.insert(id, { status: Status.SUBMITTED, stack: padded, info })).toBe(true);
    const r: Reservation = { lockId: 'L'.repeat(128), uuid: randomUUID() };
    expect(await backend.tryReserve(id, r)).toMatchObject({ stack: padded, info, reservation: r });
    expect(
      await backend.write(id, r, {
        status: Status.IN_PROGRESS,
        release: { deferUntil: Date.now() + 99_999_999 },
      }),
    ).toBe(true);
    const stored = await backend.read(id);
    expect(stored?.stack).toBe(padded);
    expect(stored?.status).toBe(Status.IN_PROGRESS);
  });

  it('removes the ephemeral instance node when the session of its client ends', async () => {
    const zk = space();
    const [a, b] = await Promise.all([zk.backend(), zk.backend()]);
    await a.heartbeat('worker-1', 60_000);
    const node = `${zk.chroot}/instances/i-worker-1`;
    const stat = await raw.exists(node, false);
    expect(stat.ephemeralOwner).not.toBe('0');
    expect(await b.liveInstances(Date.now())).toEqual(['worker-1']);
    await a.close(); // no removeInstance: only the session ends
    expect(await raw.pathExists(node, false)).toBe(false);
    expect(await b.liveInstances(Date.now())).toEqual([]);
  });

  it('keeps liveness honest to the lease even while the session lives', async () => {
    const zk = space();
    const a = await zk.backend();
    await a.heartbeat('slow', 200);
    expect(await a.liveInstances(Date.now())).toEqual(['slow']);
    expect(await a.liveInstances(Date.now() + 250)).toEqual([]);
    await a.removeInstance('slow');
    await a.removeInstance('slow');
    expect(await raw.pathExists(`${zk.chroot}/instances/i-slow`, false)).toBe(false);
  });

  it('fails promptly with FATE_STORE_UNAVAILABLE while the server hangs, and works after', async () => {
    const zk = space('?sessionTimeout=4000&operationTimeout=1000');
    const a = await zk.backend();
    await a.heartbeat('patient', 60_000);
    const frozen = service?.pause(2_500);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    const err = await rejection(a.liveInstances(Date.now()));
    expect(err.code).toBe('FATE_STORE_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(2_000);
    await frozen;
    let live: string[] | undefined;
    for (let i = 0; i < 20 && !live; i++) {
      live = await a.liveInstances(Date.now()).catch(() => undefined);
      if (!live) await new Promise((r) => setTimeout(r, 200));
    }
    expect(live).toBeDefined();
  });

  // Last: it expires every session of this process, the raw client's included.
  it('opens a new session after its session expired; heartbeat recreates the ephemeral node', async () => {
    const zk = space('?sessionTimeout=1000');
    const a = await zk.backend();
    const b = await zk.backend();
    await a.heartbeat('survivor', 60_000);
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
    expect(await retry(() => b.liveInstances(Date.now()))).toEqual([]);
    await retry(() => a.heartbeat('survivor', 60_000));
    expect(await b.liveInstances(Date.now())).toEqual(['survivor']);
    const fresh = await rawClient(service?.url as string);
    cleanup.push(async () => fresh.close());
    const stat = await fresh.exists(`${zk.chroot}/instances/i-survivor`, false);
    expect(stat.ephemeralOwner).not.toBe('0');
    // the wake-up watch was set again on the new session
    const seen = woken;
    await b.insert(newFateId(), { status: Status.SUBMITTED, stack: '[]', info: '{}' });
    for (let i = 0; i < 50 && woken === seen; i++) await new Promise((r) => setTimeout(r, 100));
    expect(woken).toBeGreaterThan(seen);
    // removed through the fresh client: the shared one's session expired too
    await removeTree(fresh, zk.chroot);
  });
});
