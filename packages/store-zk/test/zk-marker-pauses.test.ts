import { randomUUID } from 'node:crypto';
import { type FateId, newFateId, Status } from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import ZooKeeper from 'zookeeper';
import { newRecord, useZooKeeper } from './zk-fixture.js';

// Pauses and slow writers against the markers' grace period (30 s by the servers' clock):
// a runnable record must keep a marker at its own level whoever paused where. A pause is
// simulated by holding one handle's requests (or one reply) in a wrapper around the
// binding's native calls while this process's monotonic clock is moved forward, which is
// what every age here is judged by (the clock estimate and the writers' own timings).

type Call = (...args: unknown[]) => number;
const HELD = ['a_create', 'a_set', 'a_exists', 'a_get', 'a_get_children', 'a_delete_'];

/**
 * Wraps the native handle of every client opened from now on. `freezeSends(match)`: the
 * handle making a matching call sends nothing more (that call included) until `thaw()`,
 * which sends them in order. `holdReply(match)`: the reply to a matching call reaches the
 * caller only at `thaw()`. `reached` resolves when a match happened.
 */
function faults() {
  let freezeOn: ((method: string, path: string) => boolean) | undefined;
  let holdOn: ((method: string, path: string) => boolean) | undefined;
  let frozen: object | undefined;
  const queued: Array<() => void> = [];
  let reached!: () => void;
  const state = { reached: new Promise<void>((r) => (reached = r)) };
  const init = ZooKeeper.prototype.init;
  vi.spyOn(ZooKeeper.prototype, 'init').mockImplementation(function (this: ZooKeeper, config) {
    const self = this as unknown as { native: Record<string, unknown> };
    const target = self.native;
    self.native = new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop);
        if (typeof value !== 'function') return value;
        const call = (value as Call).bind(t);
        if (!HELD.includes(prop as string)) return call;
        return (...args: unknown[]) => {
          const path = args[0] as string;
          const method = prop as string;
          if (frozen !== t && freezeOn?.(method, path)) {
            frozen = t;
            reached();
          }
          if (holdOn?.(method, path)) {
            holdOn = undefined;
            const cb = args.at(-1) as (...r: unknown[]) => void;
            args[args.length - 1] = (...r: unknown[]) => {
              queued.push(() => cb(...r));
              reached();
            };
          }
          if (frozen === t) {
            queued.push(() => call(...args));
            return 0;
          }
          return call(...args);
        };
      },
      set(t, prop, value) {
        return Reflect.set(t, prop, value);
      },
    });
    return init.call(this, config);
  });
  return {
    state,
    freezeSends(match: (method: string, path: string) => boolean) {
      freezeOn = match;
    },
    holdReply(match: (method: string, path: string) => boolean) {
      holdOn = match;
    },
    thaw() {
      freezeOn = undefined;
      frozen = undefined;
      for (const fn of queued.splice(0)) fn();
    },
  };
}

/** Moves this process's monotonic clock (and so every age judged here) forward by `ms`. */
function timeJump() {
  const real = performance.now.bind(performance);
  let offset = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => real() + offset);
  return (ms: number) => {
    offset += ms;
  };
}

const atLevel = (status: string, priority: number) =>
  ({ ...(newRecord(status) as object), ...(priority ? { priority } : {}) }) as never;

const reservation = () => ({ lockId: 'w@000000000001', uuid: randomUUID() });

/** Fresh ids sharing one marker bucket (the first hex digit), sorted. */
const inOneBucket = (n: number): FateId[] => {
  const first = newFateId();
  return [
    first,
    ...Array.from({ length: n - 1 }, () => `${first[0]}${newFateId().slice(1)}` as FateId),
  ].sort();
};

const until = async (check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('ZooKeeper markers under pauses', () => {
  const zk = useZooKeeper();
  // the watchdog would close sessions on the clock jumps: a session timeout beyond them
  const params = '?sessionTimeout=120000';

  it('a writer paused between its marker touch and its record write leaves the record marked', async () => {
    const ns = zk.space(params);
    const scanner = await ns.backend();
    const jump = timeJump();
    const f = faults();
    const w2 = await ns.backend();
    const x = newFateId();
    await w2.insert(x, atLevel(Status.NEW, 2));
    const r = reservation();
    await w2.tryReserve(x, r);
    const marker = `${ns.chroot}/runnable/${x[0]}/~p2.${x}`;
    // the touch applies; the writer is frozen 40 s before it goes on
    f.holdReply((method, path) => method === 'a_create' && path === marker);
    const writing = w2.write(x, r, { status: Status.SUBMITTED, release: { deferMs: 0 } });
    await f.state.reached;
    expect(await zk.raw.pathExists(marker, false)).toBe(true);
    jump(40_000);
    // meanwhile a scan reads the record (NEW, not runnable) and finds the marker 40 s old
    expect((await scanner.scanRunnable(undefined, 10)).ids).toEqual([]);
    f.thaw();
    expect(await writing).toBe(true);
    expect((await scanner.read(x))?.status).toBe(Status.SUBMITTED);
    const scan = await scanner.scanRunnable(undefined, 10);
    expect(scan.ids).toEqual([x]);
    expect(scan.priorities).toEqual([2]);
  });

  it('a batch insert whose later records are created past the grace period still marks them', async () => {
    const ns = zk.space(params);
    const scanner = await ns.backend();
    const jump = timeJump();
    const f = faults();
    const inserter = await ns.backend();
    const ids = inOneBucket(4);
    const levels = [3, 0, -2, 1];
    const late = ids[3] as FateId;
    const record = (id: string) => `${ns.chroot}/txs/${id.slice(0, 2)}/${id}`;
    // the inserter is frozen from the last record's create on (a long batch, or a pause)
    f.freezeSends((method, path) => method === 'a_create' && path === record(late));
    const inserting = inserter.insertMany(
      ids.map((id, i) => ({ id, record: atLevel(Status.SUBMITTED, levels[i] as number) })),
    );
    await f.state.reached;
    await until(async () => (await zk.raw.pathExists(record(ids[2] as string), false)) === true);
    jump(40_000);
    // the batch marker is 40 s old and the late record absent: the scan writes it out
    expect((await scanner.scanRunnable(undefined, 10)).ids).toEqual(ids.slice(0, 3));
    const [batch] = await zk.raw.get_children(`${ns.chroot}/runnable/${late[0]}`, false);
    const [, data] = await zk.raw.get(`${ns.chroot}/runnable/${late[0]}/${batch}`, false);
    expect(String(data)).not.toContain(late);
    f.thaw();
    expect(await inserting).toEqual([true, true, true, true]);
    const scan = await scanner.scanRunnable(undefined, 10);
    expect(scan.ids).toContain(late);
    expect(scan.priorities?.[scan.ids.indexOf(late)]).toBe(1);
  });

  it('a scan paused between reading a record and repairing its marker keeps a marker touched meanwhile', async () => {
    const ns = zk.space(params);
    const writer = await ns.backend();
    const jump = timeJump();
    const f = faults();
    const scanner = await ns.backend();
    const x = newFateId();
    const marker = `${ns.chroot}/runnable/${x[0]}/~p-1.${x}`;
    await writer.insert(x, atLevel(Status.NEW, -1));
    // a stale marker (a crash's leftover), older than the record's last write
    await zk.raw.create(marker, '', 0);
    const r = reservation();
    await writer.tryReserve(x, r);
    // the scan reads the record (NEW) and is frozen as it checks the marker
    f.freezeSends((method, path) => method === 'a_exists' && path === marker);
    const scanning = scanner.scanRunnable(undefined, 10);
    await f.state.reached;
    // meanwhile the holder makes it runnable, promptly: touch, then the record
    expect(await writer.write(x, r, { status: Status.SUBMITTED, release: { deferMs: 0 } })).toBe(
      true,
    );
    jump(31_000);
    f.thaw();
    expect((await scanning).ids).toEqual([]);
    const scan = await scanner.scanRunnable(undefined, 10);
    expect(scan.ids).toEqual([x]);
  });
});
