import { createFatesStore, Fate, type JsonValue, MemoryBackend } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { QuietStep } from './test-steps.js';

describe('bad seeds through the engine', () => {
  it('refuses a missing request, a non-step and a non-JSON state with FATE_INVALID_ARGUMENT', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const fate = new Fate({
      store,
      env: {},
      steps: [{ type: 'noop', fromState: () => new QuietStep('noop') }],
    });
    // a state JSON would change (a Date) is refused, not silently altered
    const dated = new QuietStep('noop', { when: new Date(0) } as unknown as JsonValue);
    try {
      for (const call of [
        () => fate.seed(null as never, { opName: 'op' }),
        () => fate.seed(42 as never, { opName: 'op' }),
        () => fate.seed(new QuietStep('noop'), null as never),
        () => fate.seed(dated, { opName: 'op' }),
        () => store.seed(null as never),
        () => store.seed('x' as never),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
      }
      expect(await store.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
