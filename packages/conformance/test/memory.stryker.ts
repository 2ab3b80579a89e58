// Not part of `npm test`: `npm run test:stryker` runs it (docs/mutation.md). The store and
// engine suites on the memory backend, for Stryker's mutants of the engine and the guard.
import { runConformance } from '@fate/conformance';
import { memoryTarget } from './memory-target.js';

runConformance(memoryTarget);
