import { randomUUID } from 'node:crypto';
import { dropMemoryNamespace, MemoryBackend, createFatesStore } from '@fate/core';
import { runEngineConformance, runStoreConformance, type ConformanceTarget } from '@fate/conformance';

const memory: ConformanceTarget = {
  name: 'memory',
  factory: async () => {
    const namespace = randomUUID();
    const backend = new MemoryBackend(namespace);
    return {
      open: (options) => createFatesStore(new MemoryBackend(namespace), options),
      corrupt: async (id, field) => backend.corrupt(id, field),
      url: `memory:${namespace}`,
      destroy: async () => dropMemoryNamespace(namespace),
    };
  },
};

// Both suites test themselves against the in-memory reference backend.
runStoreConformance(memory);
runEngineConformance(memory);
