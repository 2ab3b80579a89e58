// A backend author's whole conformance test file (vitest): both shared suites, unchanged.

import { randomUUID } from 'node:crypto';
import { type ConformanceTarget, runConformance } from '@fate/conformance';
import { dropMemoryNamespace, type FateId, MemoryBackend } from '@fate/core';

const target: ConformanceTarget = {
  name: 'my-store',
  // Called once per test (before it; destroy() after it): a fresh, isolated data set.
  factory: async () => {
    const namespace = `t-${randomUUID()}`; // your own file, key prefix, schema or chroot
    const backend = new MemoryBackend(namespace); // replace with your StoreBackend
    return {
      // every call is another client on the same data, as another process would be:
      // an unopened backend the suites open (and wrap to inject faults) themselves
      backend: () => new MemoryBackend(namespace),
      // write bytes that do not decode into one field, behind the guard's back
      corrupt: async (id: FateId, field) => backend.corrupt(id, field),
      // what the store still holds besides its fixed skeleton (a key, row or node a line)
      leftovers: async () => backend.leftovers(),
      // a URL openStore accepts for this data: child processes open the store with it
      // (the memory store is one process's, so its process cases are skipped anyway)
      url: `memory:${namespace}`,
      // free the data and whatever the fixture started
      destroy: async () => dropMemoryNamespace(namespace),
    };
  },
};

runConformance(target);
