import type fc from 'fast-check';
import { batchScenarios } from './batches.js';
import { childScenarios } from './children.js';
import { sweepScenarios } from './focused.js';
import { limitScenarios, rateLimitScenarios } from './limits.js';
import { featureOutageScenarios, outageScenarios, priorityOutageScenarios } from './outages.js';
import { priorityScenarios } from './priorities.js';
import {
  featureScenarioArb,
  mixedScannerScenarioArb,
  runAtScenarioArb,
  type Scenario,
  scenarioArb,
} from './scenario.js';
import { lateInsertScenarios, scheduleScenarios } from './schedules.js';

/** Every generator of simulated runs, by the name `FATE_SIM_GEN` gives it. */
export const GENERATORS = {
  scenarioArb,
  sweepScenarios,
  featureScenarioArb,
  limitScenarios,
  runAtScenarioArb,
  rateLimitScenarios,
  scheduleScenarios,
  lateInsertScenarios,
  childScenarios,
  priorityScenarios,
  mixedScannerScenarioArb,
  outageScenarios,
  featureOutageScenarios,
  priorityOutageScenarios,
  batchScenarios,
} satisfies Record<string, fc.Arbitrary<Scenario>>;

export type GeneratorName = keyof typeof GENERATORS;
