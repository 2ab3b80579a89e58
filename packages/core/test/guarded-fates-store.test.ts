// The guarded store's own checks and its close (`guarded-fates-store.ts`), on the memory
// backend: bad arguments come back as rejected promises with a typed error, and a close is
// done once however often it is asked for, with every later call refused.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createFatesStore, MemoryBackend } from '../src/index.js';

describe('the guarded store', () => {
  it('answers bad arguments with a rejected promise, never a synchronous throw', async () => {
    const store = await createFatesStore(new MemoryBackend());
    try {
      for (const call of [
        () => store.registerInstance({ group: 5 } as never),
        () => store.isAlive(5 as never),
        () => store.onWakeup('not a function' as never),
      ]) {
        let promise: Promise<unknown> | undefined;
        expect(() => {
          promise = call();
        }).not.toThrow();
        await expect(promise).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
      }
    } finally {
      await store.close();
    }
  });

  it('closes once, unregistering first, and refuses every call after', async () => {
    const ns = randomUUID();
    const backend = new MemoryBackend(ns);
    const closeBackend = vi.spyOn(backend, 'close');
    const store = await createFatesStore(backend);
    const observer = await createFatesStore(new MemoryBackend(ns));
    await store.registerInstance();
    expect(await observer.liveInstances()).toHaveLength(1);
    const first = store.close();
    expect(store.close()).toBe(first);
    await first;
    expect(closeBackend).toHaveBeenCalledTimes(1);
    expect(await observer.liveInstances()).toEqual([]); // gone at once, not after a timeout
    await observer.close();
    await expect(store.list()).rejects.toMatchObject({ code: 'FATE_CLOSED' });
  });
});
