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
import { describe, expect, it } from 'vitest';
import { newRecord, rejection, removeTree, step, useZooKeeper } from './zk-fixture.js';

describe('ZkBackend against ZooKeeper', () => {
  const zk = useZooKeeper();
  const space = zk.space;

  it('opens through openStore and creates the chroot with its parents', async () => {
    const parent = `/fate-test-${randomUUID()}`;
    zk.cleanup.push(() => removeTree(zk.raw, parent));
    const store = await openStore(`${zk.service.url}${parent}/deep/er`);
    zk.cleanup.push(() => store.close());
    const { id } = await store.seed({ step: step(), opName: 'op' });
    expect((await zk.raw.get_children(`${parent}/deep/er`, false)).sort()).toEqual([
      'clock',
      'instances',
      'reserved',
      'runnable',
      'txs',
      'wakeup',
    ]);
    expect(await zk.raw.get_children(`${parent}/deep/er/txs/${id.slice(0, 2)}`, false)).toEqual([
      id,
    ]);
  });

  it('refuses a chroot its ACL or an ephemeral parent forbids with FATE_STORE_CONFIG, naming the path', async () => {
    const locked = `/fate-test-${randomUUID()}`;
    const acl = (perm: number) =>
      zk.raw.set_acl(locked, -1, [{ perm, scheme: 'world', auth: 'anyone' }] as never);
    await zk.raw.create(locked, '', 0);
    zk.cleanup.push(async () => {
      await acl(31);
      await removeTree(zk.raw, locked);
    });
    // world may read it and change its ACL, not create under it: the chroot is refused
    await acl(1 | 16);
    const ephemeral = `/fate-test-${randomUUID()}`;
    await zk.raw.create(ephemeral, '', 1);
    for (const parent of [locked, ephemeral]) {
      const err = await rejection(openStore(`${zk.service.url}${parent}/fate`));
      expect(err.code).toBe('FATE_STORE_CONFIG');
      expect(err.message).toContain(`${parent}/fate`);
    }
    // a chroot that exists is used even where its parent's ACL refuses creating it
    await acl(31);
    await zk.raw.create(`${locked}/fate`, '', 0);
    await acl(1 | 16);
    const store = await openStore(`${zk.service.url}${locked}/fate`);
    zk.cleanup.push(() => store.close());
    expect((await store.seed({ step: step(), opName: 'op' })).created).toBe(true);
  });

  it('reads only the buckets of a range: a quarter partition reads a quarter', async () => {
    const ns = space();
    const store = await ns.store();
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
    const ns = space();
    const store = await ns.store();
    const backend = await ns.backend();
    const { id } = await store.seed({ step: step(), opName: 'op' });
    const marker = `${ns.chroot}/runnable/${id.slice(0, 1)}/${id}`;
    expect(await zk.raw.pathExists(marker, false)).toBe(true);
    const h = await store.reserve(id);
    await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'unreserve' }]);
    expect(await zk.raw.pathExists(marker, false)).toBe(false);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 0 });

    // A marker newer than its record's last write may be a writer's that is about to make
    // the record runnable: scans keep it (costing one stale check) ...
    await zk.raw.create(marker, '', 0);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 3 });
    expect(await zk.raw.pathExists(marker, false)).toBe(true);
    // ... and once the record was written after it, the marker is stale for sure: repaired.
    await backend.corrupt(id, 'info');
    expect(await store.scanRunnable()).toMatchObject({ ids: [] });
    expect(await zk.raw.pathExists(marker, false)).toBe(false);
    expect(await store.scanRunnable()).toMatchObject({ ids: [], itemsRead: 0 });
  });

  it('refuses a record too large for a znode with FATE_PAYLOAD_TOO_LARGE, leaving the transaction intact', async () => {
    const ns = space();
    const backend = await ns.backend();
    const id = newFateId();
    const huge = JSON.stringify(['x'.repeat(1_048_576)]);
    expect(
      (
        await rejection(
          backend.insert(id, { status: Status.SUBMITTED, stack: huge, info: '{}', op: 'op' }),
        )
      ).code,
    ).toBe('FATE_PAYLOAD_TOO_LARGE');
    expect(await backend.read(id)).toBeUndefined();
    expect((await backend.scanRunnable(undefined, 1_000)).ids).toEqual([]);

    await backend.insert(id, newRecord(Status.NEW));
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

  it('stores a record at the declared limit, with the longest lock id and a long op name, under a long chroot', async () => {
    const ns = space();
    const deep = `${ns.url}/${'c'.repeat(200)}`;
    const backend = createStoreBackend(deep);
    zk.cleanup.push(() => backend.close());
    await backend.open();
    const limit = backend.capabilities.maxRecordBytes;
    const info = JSON.stringify({ opName: 'op' });
    const frame = Buffer.byteLength(JSON.stringify([{ type: 's', state: '' }]));
    const padded = JSON.stringify([{ type: 's', state: 'x'.repeat(limit - frame - info.length) }]);
    expect(Buffer.byteLength(padded) + info.length).toBe(limit);
    const id = newFateId();
    const op = 'o'.repeat(1_000);
    expect(await backend.insert(id, { status: Status.SUBMITTED, stack: padded, info, op })).toBe(
      true,
    );
    // the longest lock id the guard makes: a 128-character instance id @ 12 hex digits
    const r: Reservation = { lockId: `${'L'.repeat(128)}@0123456789ab`, uuid: randomUUID() };
    expect(await backend.tryReserve(id, r)).toMatchObject({ stack: padded, info, reservation: r });
    expect(
      await backend.write(id, r, {
        status: Status.IN_PROGRESS,
        release: { deferMs: 99_999_999 },
      }),
    ).toBe(true);
    const stored = await backend.read(id);
    expect(stored?.stack).toBe(padded);
    expect(stored?.status).toBe(Status.IN_PROGRESS);
  });
});
