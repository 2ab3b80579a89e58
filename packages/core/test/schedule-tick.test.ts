// Schedules (issue 25): one judgement of a schedule against the store (`scheduleTick`):
// between clients, a holder paused or killed anywhere, in virtual time on the memory backend.
// Every backend runs the engine case in @fate/conformance (engine/schedules.ts).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowMetrics } from '../src/engine/flow-metrics.js';
import { scheduledKey, scheduleId, scheduleTick } from '../src/engine/schedule-tick.js';
import { compileSchedule } from '../src/engine/schedule-types.js';
import { Schedules } from '../src/engine/schedules.js';
import { keyedFateId } from '../src/ids.js';
import {
  createFatesStore,
  type FateId,
  type FatesStore,
  MemoryBackend,
  Status,
} from '../src/index.js';
import { at, tickFactory as factory, tickSteps as steps, T0 } from './test-steps.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('schedules: one judgement against the store', () => {
  const s = compileSchedule('every-second', '* * * * * *', factory, { catchUp: 'all' });
  const ctx = (store: FatesStore, leaseValid = () => true) => ({
    store,
    steps,
    leaseValid,
    warn: () => undefined,
  });
  const dueId = (iso: string) => keyedFateId(scheduledKey('every-second', at(iso)));

  it('submits each due time once between two clients, and nothing for times before it existed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const backend = new MemoryBackend();
    const [a, b] = [await createFatesStore(backend), await createFatesStore(backend)];
    expect((await scheduleTick(ctx(a), s)).submitted).toEqual([]); // creates the record
    expect((await a.read(scheduleId('every-second'))).status).toBe(Status.NEW);
    vi.setSystemTime(T0 + 2_000);
    const first = await scheduleTick(ctx(a), s);
    const second = await scheduleTick(ctx(b), s);
    expect(first.submitted).toEqual([dueId('2026-01-01T00:00:01Z'), dueId('2026-01-01T00:00:02Z')]);
    expect(second.submitted).toEqual([]);
    const runnable = await a.scanRunnable();
    expect(runnable.ids.sort()).toEqual([...first.submitted].sort());
    expect(runnable.ops).toEqual(['every-second', 'every-second']);
  });

  it('submits nothing from a holder cleared while it paused between judging and seeding', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const backend = new MemoryBackend();
    const [a, b] = [await createFatesStore(backend), await createFatesStore(backend)];
    await scheduleTick(ctx(b), s);
    vi.setSystemTime(T0 + 3_000);
    const ids = ['01', '02', '03'].map((sec) => dueId(`2026-01-01T00:00:${sec}Z`));
    let bSubmitted: FateId[] = [];
    // A judged due times 1-3 under its reservation; before its seed reaches the store it is
    // "paused": the sweep clears its reservation, B judges and submits the same times, they
    // run and are deleted (auto-clean); then A's seed lands and finds nothing to dedup.
    const paused = pausedBefore(a, 'seedMany', async () => {
      const record = await b.read(scheduleId('every-second'));
      if (record.reservation) await backend.clearReservation(record.id, record.reservation);
      bSubmitted = [...(await scheduleTick(ctx(b), s)).submitted];
      for (const id of ids) await (await b.reserve(id)).delete();
    });
    await expect(scheduleTick(ctx(paused), s)).rejects.toMatchObject({
      code: 'FATE_NOT_RESERVED',
    });
    expect(bSubmitted).toEqual(ids);
    // A's late inserts stay NEW: never runnable, never submitted by anyone
    for (const id of ids) expect((await b.read(id)).status).toBe(Status.NEW);
    vi.setSystemTime(T0 + 4_000);
    const later = await scheduleTick(ctx(b), s);
    expect(later.submitted).toEqual([dueId('2026-01-01T00:00:04Z')]);
    expect((await b.scanRunnable()).ids).toEqual(later.submitted);
  });

  it('inserts nothing while its own lease lapsed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const store = await createFatesStore(new MemoryBackend());
    await scheduleTick(ctx(store), s);
    vi.setSystemTime(T0 + 2_000);
    expect(
      await scheduleTick(
        ctx(store, () => false),
        s,
      ),
    ).toMatchObject({ busy: true });
    expect((await store.list()).map((t) => t.opName)).toEqual(['fate:schedule']);
    expect((await scheduleTick(ctx(store), s)).submitted).toHaveLength(2);
  });
});

describe('schedules: the stored state as found', () => {
  const s = compileSchedule('every-second', '* * * * * *', factory, { catchUp: 'all' });
  const dueId = (iso: string) => keyedFateId(scheduledKey('every-second', at(iso)));
  const fields = { kind: 'schedule', name: 'every-second', pattern: '* * * * * *' };
  const setState = async (store: FatesStore, value: unknown) => {
    const h = await store.reserve(scheduleId('every-second'));
    await h.commit([
      { op: 'setInfo', key: 'internal', value: value as never },
      { op: 'unreserve' },
    ]);
  };
  const setUp = async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const store = await createFatesStore(new MemoryBackend());
    const warnings: string[] = [];
    const ctx = { store, steps, leaseValid: () => true, warn: (m: string) => warnings.push(m) };
    await scheduleTick(ctx, s); // creates the record, judged through T0
    return { store, ctx, warnings };
  };

  it('judges a record whose state does not decode again from now, owing nothing before', async () => {
    for (const bad of [
      'not an object',
      { ...fields, kind: 'other', through: T0, pending: [] },
      { ...fields, through: String(T0), pending: [] },
      { ...fields, through: T0, pending: 'none' },
    ]) {
      const { store, ctx, warnings } = await setUp();
      await setState(store, bad);
      vi.setSystemTime(T0 + 3_000);
      // due times 1-3 would be owed by the stored `through`; unreadable, nothing is
      const tick = await scheduleTick(ctx, s);
      expect(tick).toEqual({ busy: false, submitted: [], skipped: 0 });
      expect(warnings).toEqual([
        'schedule record every-second was unreadable; judged again from now',
      ]);
      const info = (await store.read(scheduleId('every-second'))).info.internal;
      expect(info).toEqual({ ...fields, through: T0 + 3_000, pending: [] });
      // and from there on as usual
      vi.setSystemTime(T0 + 4_000);
      expect((await scheduleTick(ctx, s)).submitted).toEqual([dueId('2026-01-01T00:00:04Z')]);
    }
  });

  it('submits what a holder seeded and left pending, though no time is due', async () => {
    const { store, ctx } = await setUp();
    // a holder seeded due time 0 held and wrote it pending, then stopped before submitting
    const { id } = await store.seed({
      held: true,
      key: scheduledKey('every-second', at('2026-01-01T00:00:00Z')),
      opName: 'every-second',
      step: steps.serialize(factory(new Date(at('2026-01-01T00:00:00Z')))),
    });
    await setState(store, { ...fields, through: T0, pending: [id] });
    expect((await store.read(id)).status).toBe(Status.NEW);
    const tick = await scheduleTick(ctx, s);
    expect(tick).toEqual({ busy: false, submitted: [id], skipped: 0 });
    expect((await store.read(id)).status).toBe(Status.SUBMITTED);
    expect((await store.read(scheduleId('every-second'))).info.internal).toEqual({
      ...fields,
      through: T0,
      pending: [],
    });
  });

  it("keeps each scheduled transaction for the schedule's retainMs", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const store = await createFatesStore(new MemoryBackend());
    const ctx = { store, steps, leaseValid: () => true, warn: () => undefined };
    const kept = compileSchedule('every-second', '* * * * * *', factory, { retainMs: 60_000 });
    await scheduleTick(ctx, kept);
    vi.setSystemTime(T0 + 1_000);
    const [id] = (await scheduleTick(ctx, kept)).submitted;
    expect((await store.read(id as FateId)).info.retainMs).toBe(60_000);
    vi.setSystemTime(T0 + 2_000);
    const [plain] = (await scheduleTick(ctx, s)).submitted;
    expect((await store.read(plain as FateId)).info.retainMs).toBeUndefined();
  });
});

describe('schedules: exactly once under kills', () => {
  it('submits 1,000 due times exactly once on 3 engines, one killed at a random call every 10 s', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(T0);
    const backend = new MemoryBackend();
    let seed = 25;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n); // the high bits: an LCG's low bits cycle
    };
    const submitted: FateId[] = [];
    interface Member {
      store: FatesStore;
      schedules: Schedules<unknown>;
      calls: number;
      killAt: number;
      dead: boolean;
    }
    const hang = () => new Promise<never>(() => undefined);
    const spawn = async (): Promise<Member> => {
      const m = { calls: 0, killAt: Number.POSITIVE_INFINITY, dead: false } as Member;
      // a process killed at its k-th store call: that call applies or not, then nothing more
      const killable = new Proxy(backend, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (typeof value !== 'function' || prop === 'now') return value?.bind?.(target) ?? value;
          return async (...args: unknown[]) => {
            if (m.dead) return hang();
            if (++m.calls >= m.killAt) {
              m.dead = true;
              if (random(2) === 0) await value.apply(target, args);
              return hang();
            }
            return value.apply(target, args);
          };
        },
      });
      m.store = await createFatesStore(killable);
      m.schedules = new Schedules({
        store: m.store,
        steps,
        retryMs: 1_000,
        metrics: new FlowMetrics(undefined, 'test'),
        leaseValid: () => !m.dead,
        onSubmitted: (ids) => submitted.push(...ids),
        warn: () => undefined,
      });
      m.schedules.add('every-second', '* * * * * *', factory, { catchUp: 'all' });
      m.schedules.start();
      return m;
    };
    let members = [await spawn(), await spawn(), await spawn()];
    let kills = 0;
    while (Date.now() < T0 + 1_001_000) {
      const victim = members[random(3)] as Member;
      victim.killAt = victim.calls + 1 + random(8);
      await vi.advanceTimersByTimeAsync(5_000);
      // the dead-holder sweep: the others clear what a dead one holds; a new process replaces it
      members = await Promise.all(
        members.map(async (m) => {
          if (!m.dead) return m;
          kills++;
          for (const r of await backend.reservations({ lockId: m.store.lockId })) {
            await backend.clearReservation(r.id as FateId, r.reservation);
          }
          return spawn();
        }),
      );
      await vi.advanceTimersByTimeAsync(5_000);
    }
    await Promise.all(members.map((m) => m.schedules.stop()));
    const reader = await createFatesStore(backend);
    const record = await reader.read(scheduleId('every-second'));
    const through = (record.info.internal as { through: number }).through;
    const dues: FateId[] = [];
    for (let t = T0 + 500; t <= through; t += 1_000) {
      dues.push(keyedFateId(scheduledKey('every-second', t)));
    }
    const scheduled = await reader.list({ opName: 'every-second' });
    expect(kills).toBeGreaterThanOrEqual(80);
    expect(dues.length).toBeGreaterThanOrEqual(1_000);
    expect(new Set(scheduled.map((r) => r.id))).toEqual(new Set(dues));
    expect(scheduled.filter((r) => r.status !== Status.SUBMITTED)).toEqual([]);
    // reported by live engines (one killed right after its submit applied reports nothing):
    // never twice; a record is submitted once, since nothing makes it NEW again
    expect(new Set(submitted).size).toBe(submitted.length);
    expect(submitted.filter((id) => !dues.includes(id))).toEqual([]);
  });
});

/** `store` with `method` held until `hook` ran (a pause between judging and acting). */
function pausedBefore(store: FatesStore, method: keyof FatesStore, hook: () => Promise<void>) {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop !== method) return value.bind(target);
      return async (...args: unknown[]) => {
        await hook();
        return value.apply(target, args);
      };
    },
  }) as FatesStore;
}
