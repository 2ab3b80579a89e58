import { newFateId, Status } from '@fate/core';
import { describe, expect, it, vi } from 'vitest';
import ZooKeeper from 'zookeeper';
import { newRecord, useZooKeeper } from './zk-fixture.js';

const CLOSING = -116;
const NOT_CONNECTED = 999;
type Call = (...args: unknown[]) => number;

/**
 * Wraps the native handle of every client opened from now on. A call matching `deadOn` is
 * not sent and leaves its handle as the C client leaves one whose write found the connection
 * dead (socket closed, state NOT_CONNECTED); closing that handle answers it ZCLOSING. A call
 * matching `crashOn` on a live handle is never sent: the process "dies" there.
 */
function deadConnection(
  deadOn: (method: string, path: string) => boolean,
  crashOn: (method: string, path: string) => boolean,
) {
  const init = ZooKeeper.prototype.init;
  vi.spyOn(ZooKeeper.prototype, 'init').mockImplementation(function (this: ZooKeeper, config) {
    const self = this as unknown as { native: Record<string, unknown> };
    const target = self.native;
    let dead: (() => void) | undefined;
    self.native = new Proxy(target, {
      get(t, prop) {
        if (prop === 'state' && dead) return NOT_CONNECTED;
        const value = Reflect.get(t, prop);
        if (typeof value !== 'function') return value;
        const call = (value as Call).bind(t);
        if (prop === 'close') {
          return () => {
            dead?.();
            return call();
          };
        }
        return (...args: unknown[]) => {
          const method = prop as string;
          const path = args[0] as string;
          const cb = args.at(-1) as (rc: number) => void;
          if (!dead && deadOn(method, path)) {
            dead = () => cb(CLOSING);
            return 0;
          }
          if (!dead && crashOn(method, path)) return 0;
          return call(...args);
        };
      },
      set(t, prop, value) {
        return Reflect.set(t, prop, value);
      },
    });
    return init.call(this, config);
  });
}

// A request the C client cannot write closes the handle (zk-session.ts `sent`), and the next
// request opens a new session. The requests sent back to back after it in the same call (an
// insert's record create right behind its marker's) must not go out on that new session: the
// marker then never preceded its record, and a crash before the insert's fix-up left a
// runnable record no scan finds.
describe('ZooKeeper pipeline cut by a dead connection', () => {
  const zk = useZooKeeper();

  it('never applies a record whose marker create, just before it, found the connection dead', async () => {
    const ns = zk.space();
    const other = await ns.backend();
    const x = newFateId();
    const marker = `${ns.chroot}/runnable/${x[0]}/~p2.${x}`;
    // the marker's create finds the connection dead; the process dies before any touch
    deadConnection(
      (method, path) => method === 'a_create' && path === marker,
      (method, path) => (method === 'a_create' || method === 'a_set') && path === marker,
    );
    const inserter = await ns.backend();
    const inserting = inserter.insert(x, {
      ...(newRecord(Status.SUBMITTED) as object),
      priority: 2,
    } as never);
    inserting.catch(() => undefined);
    const record = `${ns.chroot}/txs/${x.slice(0, 2)}/${x}`;
    // the insert's requests have been answered or refused by now
    const settled = await Promise.race([
      inserting.then(
        () => 'ok',
        () => 'failed',
      ),
      new Promise((r) => setTimeout(() => r('pending'), 3_000)),
    ]);
    const stored = await zk.raw.pathExists(record, false);
    const found = (await other.scanRunnable(undefined, 10)).ids.includes(x);
    // no lost work: a stored runnable record is found; else the insert did not apply
    expect({ settled, stored, found }).toEqual({ settled: 'failed', stored: false, found: false });
  });
});
