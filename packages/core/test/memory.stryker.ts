// Not part of `npm test`: `npm run test:stryker` runs it (docs/mutation.md). The store and
// engine suites on the memory backend, for Stryker's mutants of the engine and the guard.
import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { memoryTarget } from './memory-target.js';

runStoreConformance(memoryTarget);
runEngineConformance(memoryTarget);
