export { type AdminOps, coreAdmin } from './admin.js';
export { type CallFault, type FaultDecision, FaultSchedule } from './faults.js';
export { ageOffScenarios, sweepScenarios } from './focused.js';
export { History, type SimEvent } from './history.js';
export { checkHistory, type FinalRecord } from './invariants.js';
export { checkLimit, limitScenarios } from './limits.js';
export { SimProcess } from './process.js';
export { REGRESSIONS, type Regression } from './regressions.js';
export { memoryTarget, runScenario, type SimResult, type SimTarget } from './runner.js';
export {
  type Command,
  type EngineSpec,
  featureScenarioArb,
  SCENARIO_MS,
  type Scenario,
  type ScenarioBounds,
  scenarioArb,
  scenarios,
  type TxSpec,
} from './scenario.js';
export { MAX_CALLS_PER_SECOND, SimBackend, SimFault } from './sim-backend.js';
export { firstStep, type SimEnv, SimStep, type StepSpec, simStepType } from './steps.js';
export { runSimulationSuite } from './suite.js';
export { enterWorld, type World } from './world.js';
