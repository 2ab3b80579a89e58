// A run cut short by a store fault is offered again first (workers.ts puts it back; the
// finder restores it once the store answered again), not left behind every lower id of the
// backlog until the next sweep reaches it. In virtual time: the guard's retries of the
// failing write pause 20, 100 and 400 ms.
import { expect, it } from 'vitest';
import {
  createFatesStore,
  Fate,
  FateError,
  FateErrorCode,
  type FateId,
  type FateKey,
  type JsonValue,
  keyedFateId,
  MemoryBackend,
  type RecordWrite,
  type Repo,
  type Reservation,
} from '../src/index.js';
import { virtualTime } from './virtual-time.js';

/** Every call begun, in order. */
const begun: FateId[] = [];

class Logged implements Repo {
  readonly type = 'logged';
  isReady(): number {
    return 0;
  }
  call(id: FateId): undefined {
    begun.push(id);
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return {};
  }
}

/** A memory backend whose writes of `failing` fail as unavailable, `times` times, before applying. */
class FailingWrites extends MemoryBackend {
  failing: FateId | undefined;
  times = 0;
  override async write(id: FateId, r: Reservation, w: RecordWrite): Promise<boolean> {
    if (id === this.failing && this.times > 0) {
      this.times--;
      throw new FateError(FateErrorCode.STORE_UNAVAILABLE, 'the store is away');
    }
    return super.write(id, r, w);
  }
}

/** Keys of `n` keyed ids in ascending id order, and one more whose id is above them all. */
function keysInOrder(n: number): { low: FateKey[]; high: FateKey } {
  const keys = Array.from({ length: 64 }, (_, i) => ({ type: 'put-back', key: `k${i}` }));
  keys.sort((a, b) => (keyedFateId(a) < keyedFateId(b) ? -1 : 1));
  return { low: keys.slice(0, n), high: keys.at(-1) as FateKey };
}

it('offers a run cut short by a store fault again first, before the lower ids seeded meanwhile', async () => {
  const { clock, until, restore } = virtualTime();
  const backend = new FailingWrites();
  const fate = new Fate({
    store: await createFatesStore(backend),
    env: undefined,
    steps: [{ type: 'logged', fromState: () => new Logged() }],
    workers: 1,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  try {
    await fate.start();
    const { low, high } = keysInOrder(3);
    const cut = keyedFateId(high);
    // the write that ends its run fails past the guard's three repeats (a store away for
    // about half a second); the release that follows finds the store back
    backend.failing = cut;
    backend.times = 4;
    const seeded = await fate.seed(new Logged(), { opName: 'op', key: high });
    expect(seeded.id).toBe(cut);
    await until('its call began', () => begun.length === 1);
    // seeded while its finishing write fails: every one of them sorts before it
    const lower = [];
    for (const key of low) lower.push((await fate.seed(new Logged(), { opName: 'op', key })).id);
    await until('every transaction ran to the end', () => begun.length === 5).catch((e) => {
      throw new Error(`${(e as Error).message}; calls begun: ${JSON.stringify(begun)}`);
    });
    await until('all finished', () => backend.times === 0);
    expect([...begun].sort()).toEqual([...lower, cut, cut].sort());
    // it runs again next, or right after the one claimed as the store answered again (the
    // lowest): ahead of the rest of the backlog, which it would otherwise follow
    expect(begun.lastIndexOf(cut), JSON.stringify({ begun, lower, cut })).toBeLessThanOrEqual(2);
  } finally {
    const stopped = fate.shutdown(1_000);
    await clock.tickAsync(2_000);
    await stopped;
    restore();
  }
});
