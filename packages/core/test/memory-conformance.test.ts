import { randomUUID } from 'node:crypto';
import {
  type ConformanceTarget,
  runEngineConformance,
  runStoreConformance,
} from '@fate/conformance';
import { dropMemoryNamespace, MemoryBackend } from '@fate/core';

const memory: ConformanceTarget = {
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

// Both suites test themselves against the in-memory reference backend.
runStoreConformance(memory);
runEngineConformance(memory);
