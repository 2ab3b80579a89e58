import { randomUUID } from 'node:crypto';
import { type FateId, newFateId, type Reservation, Status, type StoreBackend } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { useFixture, withBackend } from './context.js';

// Backend promises the guard hides from FatesStore users, tested on a raw backend.

const record = (n: number) => ({
  status: Status.SUBMITTED,
  stack: `[{"type":"s","state":${n}}]`,
  info: `{"opName":"op-${n}"}`,
  op: `op-${n}`,
});
const stored = (n: number, reservation: Reservation | null = null) => {
  const { op: _op, ...fields } = record(n);
  return { ...fields, reservation, deferUntil: 0 };
};
type Eight = [FateId, FateId, FateId, FateId, FateId, FateId, FateId, FateId];
const holder = (): Reservation => ({ lockId: 'w1@0a1b2c', uuid: randomUUID() });

export function backendAnswerTests(target: ConformanceTarget): void {
  describe('what a backend answers', () => {
    const ctx = useFixture(target);
    const raw = <T>(use: (backend: StoreBackend) => Promise<T>) => withBackend(ctx.fixture, use);

    it("answers an absent id with 'absent' and false, and creates nothing", () =>
      raw(async (b) => {
        const id = newFateId();
        const mine = holder();
        expect(await b.read(id)).toBeUndefined();
        expect(await b.tryReserve(id, mine)).toBe('absent');
        expect(await b.tryReserve(id, mine, true)).toBe('absent');
        expect(await b.write(id, mine, { status: Status.FAILED })).toBe(false);
        expect(await b.write(id, mine, { release: { deferMs: 0 } })).toBe(false);
        expect(await b.write(id, mine, { delete: true })).toBe(false);
        expect(await b.clearReservation(id, mine)).toBe(false);
        expect(await b.read(id)).toBeUndefined();
        expect(await b.list()).toEqual([]);
      }));

    it('refuses writes and clears under a reservation that is no longer stored', () =>
      raw(async (b) => {
        const id = newFateId();
        const mine = holder();
        await b.insert(id, record(1));
        expect(await b.tryReserve(id, mine)).toEqual(stored(1, mine));
        expect(await b.write(id, mine, { release: { deferMs: 0 } })).toBe(true);
        // unreserved now: the old holder changes nothing
        expect(await b.write(id, mine, { status: Status.FAILED })).toBe(false);
        expect(await b.write(id, mine, { stack: '[]', release: { deferMs: 0 } })).toBe(false);
        expect(await b.write(id, mine, { delete: true })).toBe(false);
        expect(await b.clearReservation(id, mine)).toBe(false);
        expect(await b.read(id)).toEqual(stored(1));
      }));

    it('deletes on a write with delete, whatever other fields come with it', () =>
      raw(async (b) => {
        const id = newFateId();
        const mine = holder();
        await b.insert(id, record(1));
        await b.tryReserve(id, mine);
        const change = { delete: true, status: Status.FAILED, stack: '[]', info: '{}' };
        expect(await b.write(id, mine, { ...change, release: { deferMs: 60_000 } })).toBe(true);
        expect(await b.read(id)).toBeUndefined();
        expect(await b.reservations()).toEqual([]);
      }));

    it('answers insertMany in order, each record inserted or not on its own', () =>
      raw(async (b) => {
        const [first, taken, third, last] = [newFateId(), newFateId(), newFateId(), newFateId()];
        expect(await b.insert(taken, record(0))).toBe(true);
        const answers = await b.insertMany([
          { id: first, record: record(1) },
          { id: taken, record: record(2) },
          { id: third, record: record(3) },
          { id: last, record: record(4) },
        ]);
        expect(answers).toEqual([true, false, true, true]);
        expect(await b.read(first)).toEqual(stored(1));
        expect(await b.read(taken)).toEqual(stored(0));
        expect(await b.read(third)).toEqual(stored(3));
        expect(await b.read(last)).toEqual(stored(4));
      }));

    it('answers a call repeated after it applied as the first time (a lost reply)', () =>
      raw(async (b) => {
        const id = newFateId();
        const mine = holder();
        expect(await b.insert(id, record(1))).toBe(true);
        expect(await b.insert(id, record(2))).toBe(false);
        // started by the first: answered as found; the repeat finds it started
        expect(await b.tryReserve(id, mine, true)).toEqual(stored(1, mine));
        expect((await b.read(id))?.status).toBe(Status.IN_PROGRESS);
        expect(await b.tryReserve(id, mine, true)).toEqual({
          ...stored(1, mine),
          status: Status.IN_PROGRESS,
        });
        for (let i = 0; i < 2; i++) {
          expect(await b.write(id, mine, { stack: '[]', info: '{"n":2}' })).toBe(true);
        }
        expect(await b.write(id, mine, {})).toBe(true);
        expect(await b.read(id)).toEqual({
          status: Status.IN_PROGRESS,
          stack: '[]',
          info: '{"n":2}',
          reservation: mine,
          deferUntil: 0,
        });
      }));

    it('starts a SUBMITTED record its own reservation already holds (reserved without start)', () =>
      raw(async (b) => {
        const id = newFateId();
        const mine = holder();
        await b.insert(id, record(1));
        expect(await b.tryReserve(id, mine)).toEqual(stored(1, mine));
        expect((await b.read(id))?.status).toBe(Status.SUBMITTED);
        // answered SUBMITTED ("this call started it"): the store must hold IN_PROGRESS
        expect(await b.tryReserve(id, mine, true)).toEqual(stored(1, mine));
        expect(await b.read(id)).toEqual({ ...stored(1, mine), status: Status.IN_PROGRESS });
      }));

    it('answers the calls of one tick each as alone (a backend may send them as one request)', () =>
      raw(async (b) => {
        const ids = Array.from({ length: 8 }, () => newFateId());
        const [w1, w2, stale, gone, free, taken, repeat, reservedFirst] = ids as Eight;
        const mine = holder();
        const other = holder();
        for (const [i, id] of ids.entries()) if (id !== gone) await b.insert(id, record(i));
        for (const id of [w1, w2, stale, repeat]) await b.tryReserve(id, mine, true);
        await b.tryReserve(taken, other);
        await b.tryReserve(reservedFirst, mine);
        const finish = { status: Status.SUCCESSFUL, stack: '[]', release: { deferMs: 0 } };
        const [writes, reserves] = await Promise.all([
          Promise.all([
            b.write(w1, mine, finish),
            b.write(stale, holder(), finish),
            b.write(gone, mine, finish),
            b.write(w2, mine, { stack: '[2]' }),
          ]),
          Promise.all([
            b.tryReserve(free, mine, true),
            b.tryReserve(taken, mine, true),
            b.tryReserve(gone, mine, true),
            b.tryReserve(repeat, mine, true),
            b.tryReserve(reservedFirst, mine, true),
          ]),
        ]);
        expect(writes).toEqual([true, false, false, true]);
        expect(reserves).toEqual([
          stored(ids.indexOf(free), mine),
          'held',
          'absent',
          { ...stored(ids.indexOf(repeat), mine), status: Status.IN_PROGRESS },
          stored(ids.indexOf(reservedFirst), mine),
        ]);
        expect(await b.read(w1)).toMatchObject({ status: Status.SUCCESSFUL, reservation: null });
        expect(await b.read(w2)).toMatchObject({ stack: '[2]', reservation: mine });
        expect(await b.read(stale)).toMatchObject({
          status: Status.IN_PROGRESS,
          reservation: mine,
        });
        expect(await b.read(gone)).toBeUndefined();
        expect(await b.read(taken)).toMatchObject({ reservation: other });
        for (const id of [free, repeat, reservedFirst]) {
          expect(await b.read(id)).toMatchObject({ status: Status.IN_PROGRESS, reservation: mine });
        }
      }));

    it('replaces a liveness record, and keeps it at least its ttl', () =>
      raw(async (b) => {
        const lockId = `w-${randomUUID()}@0a1b2c`;
        await b.heartbeat(lockId, '{"beat":1}', 1_000);
        const state = ' {"beat": 2, "group": "zoë 🚀 e\u0301"}\r\n';
        await b.heartbeat(lockId, state, 1_000);
        const written = performance.now();
        const mine = async () => (await b.instances()).filter((r) => r.lockId === lockId);
        expect(await mine()).toEqual([{ lockId, state }]);
        await new Promise((r) => setTimeout(r, 600));
        const kept = await mine();
        // a machine too slow to ask within the ttl proves nothing either way
        if (performance.now() - written < 950) expect(kept).toEqual([{ lockId, state }]);
      }));
  });
}
