import { describe } from 'vitest';
import { childTests } from './engine/children.js';
import { clientApiTests } from './engine/client-api.js';
import { distributedTests } from './engine/distributed.js';
import { executionTests } from './engine/execution.js';
import { opLimitTests } from './engine/op-limits.js';
import { poolTests } from './engine/pools.js';
import { enginePriorityTests } from './engine/priorities.js';
import { processKillTests } from './engine/processes.js';
import { enginePromiseTests } from './engine/promises.js';
import { retryTests } from './engine/retries.js';
import { scheduleTests } from './engine/schedules.js';
import { cleaningTests } from './faults/cleaning.js';
import { clockSkewTests } from './faults/clock-skew.js';
import { engineFaultTests } from './faults/engine-faults.js';
import { lostReplyTests } from './faults/lost-replies.js';
import { runnerFaultTests } from './faults/runner-faults.js';
import { straySweepTests } from './faults/stray-sweeps.js';
import type { ConformanceTarget } from './fixture.js';
import { ageOffTests } from './store/age-off.js';
import { backendAnswerTests } from './store/backend-answers.js';
import { badInputTests } from './store/bad-input.js';
import { claimTests } from './store/claims.js';
import { deferralTests } from './store/deferral.js';
import { durabilityTests } from './store/durability.js';
import { fencingTests } from './store/fencing.js';
import { finishClaimTests } from './store/finish-claims.js';
import { heldTests } from './store/held.js';
import { hygieneTests } from './store/hygiene.js';
import { infoTests } from './store/info.js';
import { keyedTests } from './store/keyed.js';
import { lifecycleTests } from './store/lifecycle.js';
import { livenessTests } from './store/liveness.js';
import { preconditionTests } from './store/preconditions.js';
import { priorityTests } from './store/priorities.js';
import { processTests } from './store/processes.js';
import { storeQueryTests } from './store/queries.js';
import { reservationTests } from './store/reservation.js';
import { reservationListingTests } from './store/reservation-listing.js';
import { roundTripTests } from './store/round-trips.js';
import { scanTests } from './store/scan.js';
import { scanPagingTests } from './store/scan-paging.js';
import { seedDeferralTests } from './store/seed-deferral.js';
import { stackTests } from './store/stack.js';
import { wakeupTests } from './store/wakeups.js';
import { writeFieldTests } from './store/write-fields.js';

export * from './engine/process-harness.js';
export { Recorder, ScriptStep, script, scriptData, scriptStepType } from './engine/steps.js';
export {
  type FaultKind,
  type FaultOp,
  FaultyBackend,
  InjectedFault,
} from './faults/faulty-backend.js';
export { type ConformanceTarget, inProcessOnly, type StoreFixture } from './fixture.js';
export { ageOffTests } from './store/age-off.js';
export { openClient } from './store/context.js';
export { storeQueryTests } from './store/queries.js';

/**
 * Both conformance suites, the store's then the engine's: a backend's whole conformance test
 * file is one call. Cases are skipped only from the capabilities the backend declares.
 *
 * @example
 * // my-store.test.ts
 * runConformance({ name: 'my-store', factory: async () => myFixture() });
 */
export function runConformance(target: ConformanceTarget): void {
  runStoreConformance(target);
  runEngineConformance(target);
}

/**
 * For a backend's multi-server form (a ZooKeeper ensemble, a Redis Cluster) whose
 * single-server form runs `runConformance`: the store suite, and of the engine suite the
 * cases with several engines and processes (`many instances`, `real processes`, SIGKILL
 * included). The engine reaches a store through no operation but those the store suite
 * checks, so the rest of the engine suite would test the engine again over the same
 * operations, at minutes of CI time per target.
 */
export function runClusterConformance(target: ConformanceTarget): void {
  runStoreConformance(target);
  describe(`${target.name}: engine conformance`, () => {
    distributedTests(target);
    processKillTests(target);
  });
}

/**
 * The store conformance suite: every backend runs it unchanged, from one vitest file.
 * Cases are skipped only from the capabilities the backend declares.
 */
export function runStoreConformance(target: ConformanceTarget): void {
  describe(`${target.name}: store conformance`, () => {
    lifecycleTests(target);
    backendAnswerTests(target);
    preconditionTests(target);
    stackTests(target);
    infoTests(target);
    roundTripTests(target);
    reservationTests(target);
    reservationListingTests(target);
    claimTests(target);
    finishClaimTests(target);
    fencingTests(target);
    writeFieldTests(target);
    deferralTests(target);
    seedDeferralTests(target);
    priorityTests(target);
    scanTests(target);
    scanPagingTests(target);
    keyedTests(target);
    heldTests(target);
    livenessTests(target);
    durabilityTests(target);
    badInputTests(target);
    wakeupTests(target);
    processTests(target);
    ageOffTests(target);
    storeQueryTests(target);
    hygieneTests(target);
    lostReplyTests(target);
    cleaningTests(target);
    straySweepTests(target);
  });
}

/**
 * The engine conformance suite: runs `Fate` instances on the backend's fixture. Every
 * backend runs it unchanged, like the store suite.
 */
export function runEngineConformance(target: ConformanceTarget): void {
  describe(`${target.name}: engine conformance`, () => {
    executionTests(target);
    clientApiTests(target);
    distributedTests(target);
    poolTests(target);
    enginePromiseTests(target);
    processKillTests(target);
    engineFaultTests(target);
    runnerFaultTests(target);
    clockSkewTests(target);
    retryTests(target);
    scheduleTests(target);
    opLimitTests(target);
    enginePriorityTests(target);
    childTests(target);
  });
}
