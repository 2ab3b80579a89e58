// Cluster-wide op limits (issue 25): how soon a dead engine's slots are free again, in virtual
// time (@sinonjs/fake-timers with `node:timers/promises`, as the simulation does), so the
// bound the README states is measured the same on a loaded machine as on a quiet one.
import { expect, it } from 'vitest';
import { slotId } from '../src/engine/op-limits.js';
import {
  createFatesStore,
  Fate,
  type FateId,
  type FatesStore,
  type JsonValue,
  MemoryBackend,
  type Repo,
  type Reservation,
  Status,
} from '../src/index.js';
import { virtualTime } from './virtual-time.js';

const TIMEOUT_MS = 1_000;
const HEARTBEAT_MS = TIMEOUT_MS / 4; // the default
/** Virtual time one beat's own store calls take here (the sweep yields 1 ms to due timers). */
const BEAT_CALLS_MS = 2;

/** A memory backend noting when each heartbeat and each reservation cleared was applied. */
class NotingBackend extends MemoryBackend {
  readonly beats: Array<{ lockId: string; at: number }> = [];
  readonly cleared = new Map<string, number>();
  override async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    await super.heartbeat(lockId, state, ttlMs);
    this.beats.push({ lockId, at: performance.now() });
  }
  override async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const ok = await super.clearReservation(id, reservation);
    if (ok && !this.cleared.has(id)) this.cleared.set(id, performance.now());
    return ok;
  }
}

/** `backend` as one process sees it: once `kill()` ran, none of its calls ever returns. */
function killable(backend: MemoryBackend) {
  let dead = false;
  const proxy = new Proxy(backend, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || prop === 'now') return value?.bind?.(target) ?? value;
      return (...args: unknown[]) =>
        dead ? new Promise(() => undefined) : value.apply(target, args);
    },
  });
  return { backend: proxy, kill: () => (dead = true) };
}

/** Its first call holds on until its signal aborts; later calls end at once. */
const calls = new Map<FateId, number>();
class Hold implements Repo {
  readonly type = 'hold';
  isReady(): number {
    return 0;
  }
  async call(id: FateId, _env: unknown, { signal }: { signal: AbortSignal }): Promise<undefined> {
    calls.set(id, (calls.get(id) ?? 0) + 1);
    if (calls.get(id) === 1) await new Promise((r) => signal.addEventListener('abort', r));
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return {};
  }
}

/** The first op name `op<n>` whose only slot's id is below (or at and above) `8…`. */
function opIn(half: 'low' | 'high'): string {
  for (let n = 0; ; n++) {
    if (slotId(`op${n}`, 0) < '8' === (half === 'low')) return `op${n}`;
  }
}

// The dead engine's last heartbeat is set just before, midway between and just after the
// survivor's observations (the survivor sees it up to a beat later); its two slots lie one in
// each half of the id space, so one is in the survivor's share and one in the dead engine's.
it.each([1, 125, 249])(
  'frees a dead engine’s slots between one timeout and one timeout plus two heartbeats after its last heartbeat (survivor %i ms out of phase)',
  async (offset) => {
    const { clock, until, restore } = virtualTime();
    const backend = new NotingBackend();
    const ops = [opIn('low'), opIn('high')];
    const limits = Object.fromEntries(ops.map((op) => [op, { concurrency: 1 }]));
    const engine = (store: FatesStore) =>
      new Fate({
        store,
        env: undefined,
        steps: [{ type: 'hold', fromState: () => new Hold() }],
        workers: 2,
        limits,
        logger: { error() {}, warn() {}, info() {}, debug() {} },
      });
    const doomed = killable(backend);
    const deadStore = await createFatesStore(doomed.backend, { livenessTimeoutMs: TIMEOUT_MS });
    const dead = engine(deadStore);
    const survivor = engine(await createFatesStore(backend, { livenessTimeoutMs: TIMEOUT_MS }));
    try {
      await dead.start();
      const ids = await Promise.all(
        ops.map(async (op) => (await dead.seed(new Hold(), { opName: op })).id),
      );
      await until('both hold their slot', () => ids.every((id) => calls.get(id) === 1));
      const deadBeats = () => backend.beats.filter((b) => b.lockId === deadStore.lockId);
      let n = deadBeats().length;
      await until('a beat of the doomed engine', () => deadBeats().length > n);
      await clock.tickAsync(offset);
      await survivor.start(); // it watches the doomed one beat from here
      await clock.tickAsync(3 * HEARTBEAT_MS);
      n = deadBeats().length;
      await until('a beat of the doomed engine', () => deadBeats().length > n);
      doomed.kill(); // right after a beat: nothing it sends reaches the store any more
      const lastBeat = deadBeats().at(-1)?.at as number;
      const slots = ops.map((op) => slotId(op, 0));
      await until(
        'both slots cleared',
        () => slots.every((s) => backend.cleared.has(s)),
        5 * TIMEOUT_MS,
      );
      for (const slot of slots) {
        const after = (backend.cleared.get(slot) as number) - lastBeat;
        expect(after).toBeGreaterThanOrEqual(TIMEOUT_MS);
        expect(after).toBeLessThanOrEqual(TIMEOUT_MS + 2 * (HEARTBEAT_MS + BEAT_CALLS_MS));
      }
      // and the survivor runs both transactions again, each taking its op's one slot
      await until('both ran again', () => ids.every((id) => calls.get(id) === 2));
      await clock.tickAsync(100);
      for (const id of ids) expect((await survivor.read(id)).status).toBe(Status.SUCCESSFUL);
    } finally {
      const stopped = survivor.shutdown();
      await clock.tickAsync(5_000);
      await stopped;
      restore();
    }
  },
);
