// The store suite's groups for the store queries and age-off, on the in-memory backend
// (the other backends run them inside `runStoreConformance`).
import { ageOffTests, storeQueryTests } from '@fate/conformance';
import { describe } from 'vitest';
import { memoryTarget } from './memory-target.js';

describe('memory', () => {
  ageOffTests(memoryTarget);
  storeQueryTests(memoryTarget);
});
