import { randomUUID } from 'node:crypto';
import { dropMemoryNamespace, MemoryBackend, createFatesStore } from '@fate/core';
import { runStoreConformance } from '@fate/conformance';

// The suite tests itself against the in-memory reference backend.
runStoreConformance({
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
});
