// Not part of `npm test`: `npm run test:mutants` runs it (see
// packages/conformance/src/mutants/README.md). The store suite against every mutant of
// the in-memory backend; FATE_MUTANTS picks some by name (comma-separated), FATE_MUTANTS_ALL=1
// runs every case against every mutant instead of stopping at the first that fails.
import { backendMutants, runMutantConformance } from '@fate/conformance/mutants';
import { it } from 'vitest';
import { memoryTarget } from './memory-target.js';

// FATE_MUTANTS may name engine mutants too (memory-engine.mutants.ts): this file runs its own
const chosen = process.env.FATE_MUTANTS?.split(',').filter(Boolean);
const only = chosen?.filter((name) => backendMutants.some((m) => m.name === name));
if (!chosen?.length || only?.length) {
  runMutantConformance(memoryTarget, backendMutants, {
    ...(only?.length ? { only } : {}),
    bail: process.env.FATE_MUTANTS_ALL !== '1',
  });
} else {
  it.skip('no backend mutant was chosen', () => undefined);
}
