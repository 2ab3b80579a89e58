import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { memoryTarget } from './memory-target.js';

// Both suites test themselves against the in-memory reference backend.
runStoreConformance(memoryTarget);
runEngineConformance(memoryTarget);
