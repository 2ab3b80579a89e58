// Not part of `npm test`: `npm run test:stryker` runs it (docs/mutation.md). The store and
// engine suites on the memory backend, for Stryker's mutants of the engine and the guard —
// twice: as it is, and without its store-side queries (ageOffDue, deleteAgedOff, counts,
// listPage), so the guard's fallbacks that ZooKeeper uses (age-off by reading every finished
// record, counts and pages by listing) run too; the first Stryker run of the `liveness`
// slice found them without coverage.
import { type ConformanceTarget, runConformance } from '@fate/conformance';
import type { StoreBackend } from '@fate/core';
import { memoryTarget } from './memory-target.js';

runConformance(memoryTarget);

const QUERIES = new Set<PropertyKey>(['ageOffDue', 'deleteAgedOff', 'counts', 'listPage']);

/** `backend` as a backend that never had the optional store-side queries. */
function withoutQueries(backend: StoreBackend): StoreBackend {
  return new Proxy(backend, {
    get(target, key) {
      if (QUERIES.has(key)) return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const withoutQueriesTarget: ConformanceTarget = {
  name: 'memory without store-side queries',
  factory: async () => {
    const fixture = await memoryTarget.factory();
    const { url: _url, ...rest } = fixture;
    return { ...rest, backend: () => withoutQueries(fixture.backend()) };
  },
};

runConformance(withoutQueriesTarget);
