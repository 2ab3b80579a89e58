import crypto, { createHash } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import FakeTimers from '@sinonjs/fake-timers';

/** The virtual clock every process of a simulated world runs on. */
export type SimClock = ReturnType<typeof FakeTimers.install>;

/** What `enterWorld` replaced, to put back when the run ends. */
export interface World {
  readonly clock: SimClock;
  leave(): void;
}

/** Where the virtual clock starts (epoch ms): a fixed date, so runs do not depend on today. */
export const WORLD_EPOCH = Date.UTC(2026, 0, 1);

/**
 * Makes this process a deterministic world for one run: time is virtual (`setTimeout`,
 * `setInterval`, `setImmediate`, `Date`, `performance` and `node:timers/promises`, which
 * `@sinonjs/fake-timers` patches on the module object), and the randomness the engine and
 * the memory backend draw from `node:crypto` (`randomUUID` for ids and reservations,
 * `randomBytes` for lock ids) comes from a counter hashed with `salt`. ES modules import
 * those functions by name; `syncBuiltinESMExports` (a supported Node API) updates the
 * live bindings of `node:crypto` and `node:timers/promises` to the patched functions, so
 * core runs unchanged. Only one world exists at a time.
 */
export function enterWorld(salt: number): World {
  const clock = FakeTimers.install({
    now: WORLD_EPOCH,
    toFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'setImmediate',
      'clearImmediate',
      'Date',
      'performance',
    ],
    shouldClearNativeTimers: false,
  });
  const realUuid = crypto.randomUUID;
  const realBytes = crypto.randomBytes;
  let n = 0;
  const draw = (): Buffer => createHash('sha256').update(`${salt}:${++n}`).digest();
  crypto.randomUUID = (() => {
    const b = draw();
    b[6] = ((b[6] as number) & 0x0f) | 0x40;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    const h = b.subarray(0, 16).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }) as typeof crypto.randomUUID;
  crypto.randomBytes = ((size: number) =>
    Buffer.from(draw().subarray(0, size))) as unknown as typeof crypto.randomBytes;
  syncBuiltinESMExports();
  return {
    clock,
    leave() {
      clock.uninstall();
      crypto.randomUUID = realUuid;
      crypto.randomBytes = realBytes;
      syncBuiltinESMExports();
    },
  };
}
