import { tracingChannel } from 'node:diagnostics_channel';
import { createFatesStore, Fate, MemoryBackend } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { QuietStep } from './test-steps.js';

describe('tracing channels', () => {
  it('traces every step call and every scan through diagnostics_channel', async () => {
    const seen: string[] = [];
    const steps = tracingChannel('fate:step');
    const scans = tracingChannel('fate:scan');
    const handlers = {
      start: (m: unknown) => seen.push(`start ${(m as { type?: string }).type ?? 'scan'}`),
      asyncEnd: (m: unknown) => seen.push(`end ${(m as { type?: string }).type ?? 'scan'}`),
    };
    steps.subscribe(handlers as never);
    scans.subscribe(handlers as never);
    const store = await createFatesStore(new MemoryBackend());
    const fate = new Fate({
      store,
      env: {},
      steps: [{ type: 'noop', fromState: () => new QuietStep('noop') }],
    });
    try {
      await fate.start();
      const { id } = await fate.seed(new QuietStep('noop'), { opName: 'op' });
      await fate.waitForCompletion(id, { timeoutMs: 5_000 });
      expect(seen).toContain('start noop');
      expect(seen).toContain('end noop');
      expect(seen).toContain('start scan');
    } finally {
      steps.unsubscribe(handlers as never);
      scans.unsubscribe(handlers as never);
      await fate.shutdown();
      await store.close();
    }
  });
});
