import { randomUUID } from 'node:crypto';
import { compareRunnable, type FateId, newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { newRecord, useZooKeeper } from './zk-fixture.js';

/** `n` fresh ids, sorted. */
const freshIds = (n: number): FateId[] => Array.from({ length: n }, () => newFateId()).sort();

const LEVELS = [3, 0, -2] as const;

/** A record as `newRecord` makes it, at `priority` (absent for 0, as the guard sends it). */
const atLevel = (priority: number, op = 'op') =>
  ({
    ...(newRecord(Status.SUBMITTED, '{}', op) as object),
    ...(priority ? { priority } : {}),
  }) as never;

const reservation = () => ({ lockId: 'w@000000000001', uuid: randomUUID() });

// What the suites cannot see: marker names per level, stores written before priorities,
// a batch of mixed priorities, and marks another version left at the wrong level.
describe('ZooKeeper priorities', () => {
  const zk = useZooKeeper();

  it('reads a store written before priorities as all 0, still finds its work, and keeps its names', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    // as a version before priorities wrote them: a marker and a header without `priority`,
    // and a batch marker of two ids
    const [old, b1, b2] = freshIds(3) as [FateId, FateId, FateId];
    const header = (op: string) =>
      `{"v":2,"status":"SUBMITTED","op":"${op}","reservation":null,"deferUntil":0,"stackBytes":2}\n[]{}`;
    await zk.raw.create(`${ns.chroot}/runnable/${old[0]}/${old}`, '', 0);
    await zk.raw.create(`${ns.chroot}/runnable/${b1[0]}/~${randomUUID()}`, `${b1}\n${b2}\nend`, 0);
    for (const id of [old, b1, b2]) {
      await zk.raw.create(`${ns.chroot}/txs/${id.slice(0, 2)}/${id}`, header('old'), 0);
    }
    const [high, low] = freshIds(2) as [FateId, FateId];
    await a.insert(high, atLevel(2));
    await a.insert(low, atLevel(-1));
    const scan = await a.scanRunnable(undefined, 100);
    expect(scan.ids).toEqual([high, ...[old, b1, b2].sort(), low]);
    expect(scan.priorities).toEqual([2, 0, 0, 0, -1]);
    expect((await a.read(old))?.priority).toBeUndefined();
    // a priority-0 seed is laid out exactly as before (no rename, nothing to migrate)
    const zero = newFateId();
    await a.insert(zero, atLevel(0));
    const [, data] = await zk.raw.get(`${ns.chroot}/txs/${zero.slice(0, 2)}/${zero}`, false);
    expect(String(data)).not.toContain('priority');
    expect(await zk.raw.pathExists(`${ns.chroot}/runnable/${zero[0]}/${zero}`, false)).toBe(true);
    expect(await zk.raw.pathExists(`${ns.chroot}/runnable/${high[0]}/~p2.${high}`, false)).toBe(
      true,
    );
  });

  it('marks a batch of mixed priorities with one batch marker per bucket, and scans it in the runnable order', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = freshIds(96);
    const levelOf = new Map(ids.map((id, i) => [id, LEVELS[i % 3] as number]));
    const items = ids.map((id) => ({ id, record: atLevel(levelOf.get(id) as number) }));
    expect(await a.insertMany(items)).toEqual(ids.map(() => true));
    const order = ids
      .map((id) => ({ id, priority: levelOf.get(id) as number }))
      .sort(compareRunnable)
      .map((e) => e.id);
    for (const bucket of new Set(ids.map((id) => id[0] as string))) {
      const names = await zk.raw.get_children(`${ns.chroot}/runnable/${bucket}`, false);
      const here = ids.filter((id) => id[0] === bucket);
      if (here.length < 2) continue; // a single marker, named by its level
      // one batch marker for the bucket, its lines `<level> <id>`
      expect(names).toEqual([expect.stringMatching(/^~p~/)]);
      const [, data] = await zk.raw.get(`${ns.chroot}/runnable/${bucket}/${names[0]}`, false);
      const lines = here.map((id) => `${levelOf.get(id)} ${id}`);
      expect(String(data).split('\n').sort()).toEqual([...lines, 'end'].sort());
    }
    const whole = await a.scanRunnable(undefined, 1_000);
    expect(whole.ids).toEqual(order);
    expect(whole.priorities).toEqual(order.map((id) => levelOf.get(id)));
    // page by page with the cursor: each id once, in the same order
    const paged: string[] = [];
    let after: { priority: number; id: string } | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await a.scanRunnable(undefined, 7, after);
      paged.push(...page.ids);
      if (page.last === undefined) break;
      after = { priority: page.lastPriority as number, id: page.last };
    }
    expect(paged).toEqual(order);
    // half finish: a scan writes them out of their batches, the rest keep their levels
    const half = ids.filter((_, i) => i % 2 === 0);
    for (const id of half) {
      const r = reservation();
      await a.tryReserve(id, r);
      await a.write(id, r, { status: Status.SUCCESSFUL, release: { deferMs: 0 } });
    }
    const rest = order.filter((id) => !half.includes(id));
    expect((await a.scanRunnable(undefined, 1_000)).ids).toEqual(rest);
    expect((await a.scanRunnable(undefined, 1_000)).priorities).toEqual(
      rest.map((id) => levelOf.get(id)),
    );
    // every record finishes: scans shrink the batches away, down to nothing
    for (const id of ids.filter((_, i) => i % 2 === 1)) {
      const r = reservation();
      await a.tryReserve(id, r);
      await a.write(id, r, { status: Status.SUCCESSFUL, release: { deferMs: 0 } });
    }
    expect((await a.scanRunnable(undefined, 1_000)).ids).toEqual([]);
    for (const bucket of new Set(ids.map((id) => id[0] as string))) {
      expect(await zk.raw.get_children(`${ns.chroot}/runnable/${bucket}`, false)).toEqual([]);
    }
  });

  it('reads only about a page of records for a page, however many are runnable at other levels', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = freshIds(600);
    await a.insertMany(ids.map((id, i) => ({ id, record: atLevel(LEVELS[i % 3] as number) })));
    const markers = (
      await Promise.all(
        [...'0123456789abcdef'].map((b) =>
          zk.raw.get_children(`${ns.chroot}/runnable/${b}`, false),
        ),
      )
    ).flat().length;
    expect(markers).toBe(16); // one batch marker per bucket, whatever the levels
    const page = await a.scanRunnable(undefined, 10);
    expect(page.priorities).toEqual(Array(10).fill(3));
    // names listed, batches read, and the page's records (a window of at least 8 more)
    expect(page.itemsRead).toBeLessThanOrEqual(2 * markers + 10 + 8);
  });

  it('gives a record marked at another level (by another version) its own marker, then drops the other', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const [single, batched] = freshIds(2) as [FateId, FateId];
    // in `batched`'s bucket, to share a batch marker with it
    const other = `${batched[0]}${newFateId().slice(1)}` as FateId;
    await a.insert(single, atLevel(3));
    await a.insert(batched, atLevel(-2));
    await a.insert(other, atLevel(0));
    const bucket = (id: string) => `${ns.chroot}/runnable/${id[0]}`;
    // `single`'s marker at level 0 (an older version released it), `batched` in a level-0
    // batch: both marks older than their record's last write, their own markers gone
    await zk.raw.delete_(`${bucket(single)}/~p3.${single}`, -1);
    await zk.raw.create(`${bucket(single)}/${single}`, '', 0);
    await zk.raw.delete_(`${bucket(batched)}/~p-2.${batched}`, -1);
    const batch = `${bucket(batched)}/~${randomUUID()}`;
    await zk.raw.create(batch, `${batched}\n${other}\nend`, 0);
    for (const id of [single, batched]) {
      const r = reservation();
      await a.tryReserve(id, r);
      await a.write(id, r, { status: Status.IN_PROGRESS, release: { deferMs: 0 } });
    }
    // the first scan finds them misplaced: it answers only `other`, and moves their marks
    expect((await a.scanRunnable(undefined, 10)).ids).toEqual([other]);
    expect(await zk.raw.pathExists(`${bucket(single)}/~p3.${single}`, false)).toBe(true);
    expect(await zk.raw.pathExists(`${bucket(single)}/${single}`, false)).toBe(false);
    expect(await zk.raw.pathExists(`${bucket(batched)}/~p-2.${batched}`, false)).toBe(true);
    const [, left] = await zk.raw.get(batch, false);
    expect(String(left).split('\n')).toEqual([other, 'end']);
    const next = await a.scanRunnable(undefined, 10);
    expect(next.ids).toEqual([single, other, batched]);
    expect(next.priorities).toEqual([3, 0, -2]);
  });
  it('pages an id marked at its own level and, left by a crash, at another once, at its own level', async () => {
    const ns = zk.space();
    const a = await ns.backend();
    const ids = freshIds(6);
    const levels = [2, 0, 2, -1, 0, 2];
    for (const [i, id] of ids.entries()) await a.insert(id, atLevel(levels[i] as number));
    // crashed between touching the own-level marker and removing the wrong one: both stay
    const x = ids[0] as FateId;
    await zk.raw.create(`${ns.chroot}/runnable/${x[0]}/${x}`, '', 0);
    await zk.raw.create(`${ns.chroot}/runnable/${x[0]}/~p-1.${x}`, '', 0);
    const order = ids
      .map((id, i) => ({ id, priority: levels[i] as number }))
      .sort(compareRunnable)
      .map((e) => e.id);
    for (const limit of [1, 2, 4]) {
      const paged: string[] = [];
      let after: { priority: number; id: string } | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await a.scanRunnable(undefined, limit, after);
        paged.push(...page.ids);
        if (page.last === undefined) break;
        after = { priority: page.lastPriority as number, id: page.last };
      }
      expect(paged).toEqual(order);
    }
  });
});
