// submitHeld (records seeded `held`, NEW, submitted at most once whoever tries) and
// internalState (the typed refusal of an `internal` info value that is not fate's), on the
// memory store with a second client standing for another engine.
import { describe, expect, it, vi } from 'vitest';
import { internalState, submitHeld } from '../src/engine/held-records.js';
import {
  createFatesStore,
  FateErrorCode,
  type FateId,
  isFateError,
  MemoryBackend,
  newFateId,
  Status,
} from '../src/index.js';

async function stores() {
  const backend = new MemoryBackend();
  return { backend, mine: await createFatesStore(backend), other: await createFatesStore(backend) };
}
const step = { type: 'x', state: null };

describe('submitHeld', () => {
  it('submits every NEW record it can reserve, each once, and leaves none reserved', async () => {
    const { backend, mine, other } = await stores();
    const held = await mine.seedMany([0, 1, 2].map(() => ({ step, opName: 'op', held: true })));
    const ids = held.map((s) => s.id);
    for (const id of ids) expect((await other.read(id)).status).toBe(Status.NEW);
    const writes = vi.spyOn(backend, 'write');
    expect(await submitHeld(mine, ids)).toEqual({ left: [], submitted: ids });
    expect(writes).toHaveBeenCalledTimes(3); // one fenced write each: submitted and let go
    for (const id of ids) expect((await other.read(id)).status).toBe(Status.SUBMITTED);
    expect(await other.reservations()).toEqual([]);
    // asked again (a repeat, another engine): nothing is submitted twice
    expect(await submitHeld(other, ids)).toEqual({ left: [], submitted: [] });
    expect(await other.reservations()).toEqual([]);
  });

  it('leaves a NEW record another client holds for later, and skips one it holds that is gone past NEW', async () => {
    const { mine, other } = await stores();
    const [a, b, c] = (
      await mine.seedMany([0, 1, 2].map(() => ({ step, opName: 'op', held: true })))
    ).map((s) => s.id) as [FateId, FateId, FateId];
    const holdA = await other.reserve(a);
    const holdB = await other.reserve(b);
    await holdB.commit([{ op: 'setStatus', status: Status.SUBMITTED }]);
    const missing = newFateId();
    expect(await submitHeld(mine, [a, b, missing, c])).toEqual({ left: [a], submitted: [c] });
    expect((await mine.read(a)).status).toBe(Status.NEW);
    expect(holdA.isReserved && holdB.isReserved).toBe(true);
  });

  it('does not submit, and gives back, a record no longer NEW when it reserved it', async () => {
    const { mine, other } = await stores();
    const { id } = await mine.seed({ step, opName: 'op' }); // SUBMITTED from the start
    expect(await submitHeld(mine, [id])).toEqual({ left: [], submitted: [] });
    expect(await other.reservations()).toEqual([]);
    expect((await other.read(id)).status).toBe(Status.SUBMITTED);
  });

  it('passes a store fault on; the record stays NEW, its reservation an orphan releaseOrphans gives back', async () => {
    const { backend, mine, other } = await stores();
    const { id } = await mine.seed({ step, opName: 'op', held: true });
    const write = backend.write.bind(backend);
    backend.write = () => Promise.reject(new Error('the store went away'));
    const err = await submitHeld(mine, [id]).then(
      () => undefined,
      (e: unknown) => e,
    );
    backend.write = write;
    expect(isFateError(err, FateErrorCode.STORE_UNAVAILABLE)).toBe(true);
    expect((await other.read(id)).status).toBe(Status.NEW);
    // the write's outcome was unknown: the handle gave up on it, and the engine's next
    // reconcile (membership) releases what this client holds without knowing
    expect((await mine.releaseOrphans()).map((r) => r.id)).toEqual([id]);
    expect(await other.reservations()).toEqual([]);
    expect(await submitHeld(other, [id])).toEqual({ left: [], submitted: [id] });
  });
});

describe('internalState', () => {
  it('returns fate’s own record of the kind asked for', () => {
    const value = { kind: 'schedule', every: 1 };
    expect(internalState(newFateId(), value, 'schedule')).toBe(value);
  });

  it.each([
    ['a string', 'schedule'],
    ['null', null],
    ['an array', [{ kind: 'schedule' }]],
    ['another kind', { kind: 'limit' }],
    ['no kind', { every: 1 }],
  ])('refuses %s with FATE_CORRUPT_DATA naming the id', (_, value) => {
    const id = newFateId();
    let err: unknown;
    try {
      internalState(id, value, 'schedule');
    } catch (e) {
      err = e;
    }
    expect(isFateError(err, FateErrorCode.CORRUPT_DATA)).toBe(true);
    expect((err as Error).message).toBe(`${id} is not a schedule record of fate's`);
  });
});
