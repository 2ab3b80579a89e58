import { randomUUID } from 'node:crypto';
import { type FateId, newFateId, partitionRange, Status } from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import { newRecord, useZooKeeper } from './zk-fixture.js';
import { checkEndingWritesDropMarkers } from './zk-marker-check.js';

/** `n` fresh ids, sorted. */
const freshIds = (n: number): FateId[] => Array.from({ length: n }, () => newFateId()).sort();

describe('ZooKeeper inserts, paged scans and the reservation index', () => {
  const zk = useZooKeeper();

  it('inserts a batch with markers for runnable records only, one answer per record', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    // the batch's runnable records (taken, ids[1], ids[3]) in three marker buckets: two in
    // one bucket share a batch marker instead of a marker each
    let all = freshIds(6);
    while (new Set([all[0], all[2], all[4]].map((id) => id?.[0])).size < 3) all = freshIds(6);
    const [taken, ...ids] = all as [FateId, ...FateId[]];
    expect(await a.insert(taken, newRecord(Status.SUBMITTED, '{"first":true}'))).toBe(true);
    const batch = [taken, ...ids].map((id, i) => ({
      id,
      record: newRecord(i % 2 ? Status.NEW : Status.SUBMITTED, '{}', `op-${i}`),
    }));
    expect(await a.insertMany(batch)).toEqual([false, true, true, true, true, true]);
    expect((await a.read(taken))?.info).toBe('{"first":true}');
    const marked = async (id: FateId) =>
      zk.raw.pathExists(`${ns.chroot}/runnable/${id[0]}/${id}`, false);
    expect(await Promise.all(ids.map(marked))).toEqual([false, true, false, true, false]);
    const scan = await a.scanRunnable(undefined, 100);
    expect(scan.ids).toEqual([taken, ids[1], ids[3]].sort());
    const opOf = new Map(scan.ids.map((id, i) => [id, scan.ops[i]]));
    expect([opOf.get(taken), opOf.get(ids[1] as FateId), opOf.get(ids[3] as FateId)]).toEqual([
      'op',
      'op-2',
      'op-4',
    ]);
  });

  it('marks a batch with one batch marker per bucket, shrunk by scans as its records finish', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = freshIds(64);
    await a.insertMany(ids.map((id) => ({ id, record: newRecord(Status.SUBMITTED) })));
    const bucketOf = (id: string) => `${ns.chroot}/runnable/${id[0]}`;
    const names = async (id: string) => zk.raw.get_children(bucketOf(id), false);
    const byBucket = new Map<string, FateId[]>();
    for (const id of ids)
      byBucket.set(id[0] as string, [...(byBucket.get(id[0] as string) ?? []), id]);
    for (const [, inBucket] of byBucket) {
      const listed = await names(inBucket[0] as string);
      // two or more in a bucket: one batch marker; one alone: its own marker
      expect(listed).toEqual(inBucket.length > 1 ? [expect.stringMatching(/^~/)] : inBucket);
    }
    expect((await a.scanRunnable(undefined, 100)).ids).toEqual(ids);
    // the first of a crowded bucket finishes; a scan writes it out of the batch
    const [bucket, crowd] = [...byBucket].find(([, v]) => v.length > 2) as [string, FateId[]];
    const done = crowd[0] as FateId;
    const r = { lockId: 'w@000000000001', uuid: randomUUID() };
    await a.tryReserve(done, r);
    await a.write(done, r, { status: Status.SUCCESSFUL, release: { deferMs: 0 } });
    expect((await a.scanRunnable(undefined, 100)).ids).toEqual(ids.filter((id) => id !== done));
    const [batch] = await zk.raw.get_children(`${ns.chroot}/runnable/${bucket}`, false);
    const data = await zk.raw.get(`${ns.chroot}/runnable/${bucket}/${batch}`, false);
    // the rest, and the line that says every record of the batch was created
    expect(String(data[1]).split('\n').sort()).toEqual([...crowd.slice(1), 'end'].sort());
    // made runnable again by a write: that write marks it on its own
    await a.tryReserve(done, r);
    await a.write(done, r, { status: Status.IN_PROGRESS, release: { deferMs: 0 } });
    expect((await a.scanRunnable(undefined, 100)).ids).toEqual(ids);
    // once all of them finished, a scan deletes the batch marker
    for (const id of crowd) {
      const mine = { lockId: 'w@000000000001', uuid: randomUUID() };
      await a.tryReserve(id, mine);
      await a.write(id, mine, { status: Status.FAILED, release: { deferMs: 0 } });
    }
    await a.scanRunnable(undefined, 100);
    expect(await zk.raw.get_children(`${ns.chroot}/runnable/${bucket}`, false)).toEqual([]);
  });

  it('repairs a batch insert whose buckets were removed by hand, marker before record', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const id = newFateId();
    await zk.raw.delete_(`${ns.chroot}/runnable/${id[0]}`, -1);
    await zk.raw.delete_(`${ns.chroot}/txs/${id.slice(0, 2)}`, -1);
    expect(await a.insertMany([{ id, record: newRecord(Status.SUBMITTED) }])).toEqual([true]);
    const marker = await zk.raw.exists(`${ns.chroot}/runnable/${id[0]}/${id}`, false);
    const record = await zk.raw.exists(`${ns.chroot}/txs/${id.slice(0, 2)}/${id}`, false);
    expect(marker.mzxid < record.czxid).toBe(true);
    expect((await a.scanRunnable(undefined, 10)).ids).toEqual([id]);
  });

  it('pages a scan: at most `limit` ids, `last` where the page ended, none once the range is exhausted', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = freshIds(12);
    await a.insertMany(ids.map((id) => ({ id, record: newRecord(Status.SUBMITTED) })));
    const first = await a.scanRunnable(undefined, 5);
    expect(first.ids).toEqual(ids.slice(0, 5));
    expect(first.last).toBe(ids[4]);
    // only about a page of records was read, besides the 12 marker names listed
    expect(first.itemsRead).toBeLessThan(12 + 12);
    const rest = await a.scanRunnable({ start: `${ids[4]}0` }, 7);
    expect(rest.ids).toEqual(ids.slice(5));
    expect(rest.last).toBeUndefined();
    const range = partitionRange({ partition: 1, total: 2 });
    const upper = await a.scanRunnable(range, 100);
    expect(upper.ids).toEqual(ids.filter((id) => id >= '80000000'));
    expect(upper.last).toBeUndefined();
  });

  it('keeps a fresh marker of a record not inserted yet, however far ahead this process’s wall clock is', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const id = newFateId();
    // another client's insert in flight: its marker is created, its record not yet
    const marker = `${ns.chroot}/runnable/${id[0]}/${id}`;
    await zk.raw.create(marker, '', 0);
    const real = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => real + 3_600_000);
    await a.scanRunnable(undefined, 10);
    expect(await zk.raw.pathExists(marker, false)).toBe(true);
  });

  it('lists reservations of a range from its buckets only, and of a lock id from marker names', async () => {
    const ns = zk.space();
    const [a, b] = await Promise.all([ns.backend(), ns.backend()]);
    const ids = freshIds(40);
    await a.insertMany(ids.map((id) => ({ id, record: newRecord(Status.SUBMITTED) })));
    const held = await Promise.all(
      ids.map(async (id, i) => {
        const reservation = {
          lockId: i % 3 ? 'x@000000000001' : 'y@000000000002',
          uuid: randomUUID(),
        };
        await (i % 2 ? a : b).tryReserve(id, reservation);
        return { id, reservation };
      }),
    );
    expect(await b.reservations()).toEqual(held);
    const range = partitionRange({ partition: 2, total: 4 });
    expect(await a.reservations({ range })).toEqual(
      held.filter((h) => h.id >= '80000000' && h.id < 'c0000000'),
    );
    expect(await a.reservations({ lockId: 'y@000000000002' })).toEqual(
      held.filter((h) => h.reservation.lockId === 'y@000000000002'),
    );
    expect(await a.reservations({ range, lockId: 'nobody' })).toEqual([]);
  });

  it('drops a reservation marker whose record is gone, and the listing does not fail, each time', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const reservedIn = (id: FateId) => zk.raw.get_children(`${ns.chroot}/reserved/${id[0]}`, false);
    for (const id of freshIds(2)) {
      await a.insert(id, newRecord(Status.SUBMITTED));
      await a.tryReserve(id, { lockId: 'gone@000000000001', uuid: randomUUID() });
      expect(await reservedIn(id)).toHaveLength(1);
      // the record deleted behind the store's back, its reservation marker left
      await zk.raw.delete_(`${ns.chroot}/txs/${id.slice(0, 2)}/${id}`, -1);
      expect(await a.reservations()).toEqual([]);
      // repaired off the listing's path: a marker of an absent record is stale for sure
      await vi.waitFor(async () => expect(await reservedIn(id)).toEqual([]), { timeout: 5_000 });
    }
  });

  it('removes the runnable and reservation markers of a record with the write that ends them', async () => {
    const ns = zk.space();
    await checkEndingWritesDropMarkers(await ns.backend(), zk.raw, ns.chroot);
  });

  it('leaves only its 294 bookkeeping nodes once every transaction was finished and deleted', async () => {
    const ns = zk.space();
    const store = await ns.store();
    const seeded = await store.seedMany(
      Array.from({ length: 40 }, (_, i) => ({ step: { type: 's', state: i }, opName: 'op' })),
    );
    for (const [i, { id }] of seeded.entries()) {
      const h = await store.reserve(id);
      if (i % 2)
        await h.unreserve(5_000); // deferred first, then finished by another client
      else await h.commit([{ op: 'setStatus', status: Status.SUCCESSFUL }, { op: 'delete' }]);
    }
    const other = await ns.store();
    for (const { id } of seeded.filter((_, i) => i % 2)) {
      const h = await other.reserve(id);
      await h.commit([{ op: 'setStatus', status: Status.FAILED }, { op: 'delete' }]);
    }
    await other.scanRunnable(); // scans drop finished records out of their batch markers
    const count = async (path: string): Promise<number> => {
      const children = await zk.raw.get_children(path, false);
      const below = await Promise.all(children.map((c) => count(`${path}/${c}`)));
      return children.length + below.reduce((a, b) => a + b, 0);
    };
    // 6 top nodes and 256 + 16 + 16 buckets, all empty: the bound whatever ran before
    expect(await count(ns.chroot)).toBe(294);
  });

  it('adopts the flat reservation markers of an older layout when it opens', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const [kept, gone] = freshIds(2) as [FateId, FateId];
    for (const id of [kept, gone]) await a.insert(id, newRecord(Status.SUBMITTED));
    const reservation = { lockId: 'old-instance', uuid: randomUUID() };
    await a.tryReserve(kept, reservation);
    // as an older version left it: flat markers, no clock node
    const bucket = `${ns.chroot}/reserved/${kept[0]}`;
    await zk.raw.delete_(`${bucket}/${kept}+old-instance+${reservation.uuid}`, -1);
    await zk.raw.create(`${ns.chroot}/reserved/${kept}+${reservation.uuid}`, '', 0);
    await zk.raw.create(`${ns.chroot}/reserved/${gone}+${randomUUID()}`, '', 0);
    await zk.raw.delete_(`${ns.chroot}/clock`, -1);
    const b = await ns.backend();
    expect(await b.reservations({ lockId: 'old-instance' })).toEqual([{ id: kept, reservation }]);
    expect((await zk.raw.get_children(`${ns.chroot}/reserved`, false)).length).toBe(16);
    expect(await zk.raw.get_children(bucket, false)).toEqual([
      `${kept}+old-instance+${reservation.uuid}`,
    ]);
  });
});
