// Not part of `npm test`: `npm run test:mutants` runs it (see
// packages/conformance/src/mutants/README.md). The engine suite against every engine mutant,
// on the in-memory backend; FATE_MUTANTS picks some by name (comma-separated), FATE_MUTANTS_ALL=1
// runs every case against every mutant instead of stopping at the first that fails.
import { engineMutants, runEngineMutantConformance } from '@fate/conformance/mutants';
import { it } from 'vitest';
import { memoryTarget } from './memory-target.js';

const chosen = process.env.FATE_MUTANTS?.split(',').filter(Boolean);
const only = chosen?.filter((name) => engineMutants.some((m) => m.name === name));
if (!chosen?.length || only?.length) {
  runEngineMutantConformance(memoryTarget, engineMutants, {
    ...(only?.length ? { only } : {}),
    bail: process.env.FATE_MUTANTS_ALL !== '1',
  });
} else {
  it.skip('no engine mutant was chosen', () => undefined);
}
