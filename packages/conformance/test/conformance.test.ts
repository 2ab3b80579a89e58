// The suites' self-test: both suites on the in-memory reference backend, the contract's
// semantics by definition. A case that fails here is a broken case, not a broken backend.
// (The mutants beside this file check the other way round: that the cases fail on
// backends and engines that break a promise.)
import { runConformance } from '@fate/conformance';
import { memoryTarget } from './memory-target.js';

runConformance(memoryTarget);
