export { type AdminOps, coreAdmin } from './admin.js';
export { CHILD_RECHECK_MS, checkChildren, childrenWithin, childScenarios } from './children.js';
export { type CallFault, type FaultDecision, FaultSchedule } from './faults.js';
export { ageOffScenarios, sweepScenarios } from './focused.js';
export { GENERATORS, type GeneratorName } from './generators.js';
export { History, type SimEvent } from './history.js';
export { checkHistory, type FinalRecord } from './invariants.js';
export { checkLimit, limitScenarios, rateLimitScenarios } from './limits.js';
export {
  featureOutageScenarios,
  outageScenarios,
  priorityOutageScenarios,
} from './outages.js';
export { checkStarvation, priorityScenarios } from './priorities.js';
export { SimProcess } from './process.js';
export { REGRESSIONS, type Regression } from './regressions.js';
export { checkRunAt } from './run-at.js';
export { memoryTarget, runScenario, type SimResult, type SimTarget } from './runner.js';
export {
  type ChildrenSpec,
  type Command,
  type EngineSpec,
  featureScenarioArb,
  mixedScannerScenarioArb,
  runAtScenarioArb,
  SCENARIO_MS,
  type Scenario,
  type ScenarioBounds,
  type ScheduleSpec,
  scenarioArb,
  scenarios,
  type TxSpec,
} from './scenario.js';
export {
  checkSchedule,
  lateInsertScenarios,
  scheduleScenarios,
  schedulesWithin,
} from './schedules.js';
export { MAX_CALLS_PER_SECOND, SimBackend, SimFault } from './sim-backend.js';
export {
  firstStep,
  plainStep,
  type SimEnv,
  SimStep,
  type StepSpec,
  simStepType,
} from './steps.js';
export { runSimulationSuite } from './suite.js';
export { enterWorld, type World } from './world.js';
