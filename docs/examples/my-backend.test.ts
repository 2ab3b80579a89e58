// A backend author's whole conformance test file (vitest): both shared suites, unchanged.

import {
  type ConformanceTarget,
  runEngineConformance,
  runStoreConformance,
} from '@fate/conformance';
import { type FateId, MemoryBackend } from '@fate/core';

const target: ConformanceTarget = {
  name: 'my-store',
  // Called for every test group: a fresh, isolated data set each time.
  factory: async () => {
    const namespace = `t-${Math.random().toString(36).slice(2)}`;
    const backend = new MemoryBackend(namespace); // replace with your StoreBackend
    return {
      // every call is another client on the same data, as another process would be:
      // an unopened backend the suites open (and wrap to inject faults) themselves
      backend: () => new MemoryBackend(namespace),
      // write bytes that do not decode into one field, behind the guard's back
      corrupt: async (id: FateId, field) => backend.corrupt(id, field),
      // what the store still holds besides its fixed skeleton (a key, row or node a line)
      leftovers: async () => backend.leftovers(),
      destroy: async () => {},
    };
  },
};

runStoreConformance(target);
runEngineConformance(target);
