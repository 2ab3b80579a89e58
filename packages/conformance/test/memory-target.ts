import { randomUUID } from 'node:crypto';
import type { ConformanceTarget } from '@fate/conformance';
import { dropMemoryNamespace, MemoryBackend } from '@fate/core';

/** The in-memory reference backend as a conformance target: a fresh namespace per fixture. */
export const memoryTarget: ConformanceTarget = {
  name: 'memory',
  factory: async () => {
    const namespace = randomUUID();
    const backend = new MemoryBackend(namespace);
    return {
      backend: () => new MemoryBackend(namespace),
      corrupt: async (id, field) => backend.corrupt(id, field),
      leftovers: async () => backend.leftovers(),
      url: `memory:${namespace}`,
      destroy: async () => dropMemoryNamespace(namespace),
    };
  },
};
