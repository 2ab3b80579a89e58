import { type FateId, newFateId, Status, type StoreBackend } from '@fate/core';
import { expect } from 'vitest';
import type ZooKeeper from 'zookeeper';
import { newRecord } from './zk-fixture.js';

/**
 * Inserts three runnable records through `backend` (opened, on `chroot`), reserves each and
 * ends them: one finished, one failed, one deleted. Checks with `raw` that each ending
 * write removed its record's runnable and reservation markers itself, before any scan
 * could repair them. The store-hygiene case sees markers only after a scan, which drops
 * stale ones on the way, so whether it caught a write that left them depended on the ids.
 * Used by zk-indexes.test.ts and, under each index mutant, by zk-index.mutants.ts.
 */
export async function checkEndingWritesDropMarkers(
  backend: StoreBackend,
  raw: ZooKeeper,
  chroot: string,
): Promise<void> {
  const [done, failed, deleted] = Array.from({ length: 3 }, () => newFateId()).sort() as [
    FateId,
    FateId,
    FateId,
  ];
  const runnable = (id: FateId) => raw.pathExists(`${chroot}/runnable/${id[0]}/${id}`, false);
  const reserved = async (id: FateId) =>
    (await raw.get_children(`${chroot}/reserved/${id[0]}`, false)).filter((n: string) =>
      n.startsWith(`${id}+`),
    );
  for (const id of [done, failed, deleted]) {
    expect(await backend.insert(id, newRecord(Status.SUBMITTED))).toBe(true);
    expect(await runnable(id)).toBe(true);
  }
  const hold = (id: FateId) => ({ lockId: 'w@000000000001', uuid: `u-${id}` });
  for (const id of [done, failed, deleted]) {
    expect(await backend.tryReserve(id, hold(id), true)).toMatchObject({ reservation: hold(id) });
    expect(await reserved(id)).toHaveLength(1);
  }
  const end = { release: { deferMs: 0 } };
  expect(await backend.write(done, hold(done), { status: Status.SUCCESSFUL, ...end })).toBe(true);
  expect(await backend.write(failed, hold(failed), { status: Status.FAILED, ...end })).toBe(true);
  expect(await backend.write(deleted, hold(deleted), { delete: true })).toBe(true);
  for (const id of [done, failed, deleted]) {
    expect(await runnable(id), id).toBe(false);
    expect(await reserved(id), id).toEqual([]);
  }
}
