import { randomUUID } from 'node:crypto';
import { newFateId, partitionRange, type Reservation, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { newRecord, useZooKeeper } from './zk-fixture.js';

// Concurrent writers, stale reservations and fencing; the rest of 'ZkBackend against
// ZooKeeper' (opening, chroots, scans, markers, size limits) is in zk-backend.test.ts.
describe('ZkBackend against ZooKeeper', () => {
  const zk = useZooKeeper();
  const space = zk.space;

  /** Every reservation marker's name, from all 16 buckets. */
  const reservedMarkers = async (chroot: string): Promise<string[]> => {
    const buckets = await zk.raw.get_children(`${chroot}/reserved`, false);
    const names = await Promise.all(
      buckets.map((b) => zk.raw.get_children(`${chroot}/reserved/${b}`, false)),
    );
    return names.flat().sort();
  };

  it('retries on version conflicts: concurrent writers never lose an update', async () => {
    const ns = space();
    const backends = await Promise.all([ns.backend(), ns.backend(), ns.backend()]);
    const id = newFateId();
    await backends[0]?.insert(id, newRecord(Status.IN_PROGRESS, '{"n":0}'));
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
              release: { deferMs: 0 },
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
    const ns = space();
    const [a, b] = await Promise.all([ns.backend(), ns.backend()]);
    const [first, second] = [newFateId(), newFateId()];
    for (const id of [first, second]) {
      await a.insert(id, newRecord(Status.SUBMITTED));
    }
    expect((await a.scanRunnable(undefined, 1_000)).ids).toEqual([first, second].sort());
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
    expect(await reservedMarkers(ns.chroot)).toEqual(
      [`${first}+a+${mine.uuid}`, `${second}+b+${theirs.uuid}`].sort(),
    );
    expect(await a.write(first, mine, { release: { deferMs: 0 } })).toBe(true);
    expect(await reservedMarkers(ns.chroot)).toEqual([`${second}+b+${theirs.uuid}`]);
  });

  it('fences a write whose reservation changed between its read and its write', async () => {
    const ns = space();
    const [a, b] = await Promise.all([ns.backend(), ns.backend()]);
    const id = newFateId();
    await a.insert(id, newRecord(Status.NEW));
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

  it('a scan racing a batch insert drops none of its ids from the batch markers', async () => {
    const ns = space();
    const [inserter, scanner] = await Promise.all([ns.backend(), ns.backend()]);
    const fresh = (n: number) => Array.from({ length: n }, () => newFateId()).sort();
    // every record bucket made first (NEW records: no markers), so no create below meets a
    // missing bucket, whose fallback marks the record on its own
    await inserter.insertMany(fresh(3_000).map((id) => ({ id, record: newRecord(Status.NEW) })));
    const ids = fresh(3_000);
    // The batch markers go out first, then the records: a scan in between reads markers of
    // records not created yet. Such an id may leave its batch only once the batch is
    // complete or past the grace period; written out earlier, its record would be created
    // unmarked, and no scan would find it.
    let inserting = true;
    let scans = 0;
    // one loop per marker bucket (a sixteenth of the ids each): short scans, many of them
    const scanning = Promise.all(
      Array.from({ length: 16 }, async (_, partition) => {
        const range = partitionRange({ partition, total: 16 });
        while (inserting) {
          await scanner.scanRunnable(range, ids.length);
          scans++;
        }
      }),
    );
    await inserter.insertMany(ids.map((id) => ({ id, record: newRecord(Status.SUBMITTED) })));
    inserting = false;
    await scanning;
    expect(scans).toBeGreaterThan(0);
    expect((await scanner.scanRunnable(undefined, ids.length + 1)).ids).toEqual(ids);
  });
});
