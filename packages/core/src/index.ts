export type {
  BackendScan,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  ReservationFilter,
  StoreBackend,
  StoredRecord,
} from './contract/backend.js';
export type { ClaimedRecord, StoreBackendClaims } from './contract/backend-claims.js';
export type {
  FinishClaimed,
  StoreBackendFinishClaims,
} from './contract/backend-finish-claims.js';
export type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendListRow,
  FinishedEntry,
  StoreBackendQueries,
} from './contract/backend-queries.js';
export { declareCapabilities, type StoreCapabilities } from './contract/capabilities.js';
export { type ClaimOptions, type ClaimResult, MAX_CLAIM } from './contract/claim-types.js';
export type { FateStore, TxChange } from './contract/fate-store.js';
export type { FatesStore } from './contract/fates-store.js';
export { MAX_STACK_DEPTH } from './contract/limits.js';
export * from './contract/liveness-types.js';
export { instanceIdOf } from './contract/lock-id.js';
export { resolveStoreOptions, type StoreOptions } from './contract/options.js';
export * from './contract/priority.js';
export * from './contract/query-types.js';
export * from './contract/types.js';
export {
  type AwaitChildrenOptions,
  awaitChildren,
  type ChildOutcome,
  type ChildSpec,
  childKey,
} from './engine/children.js';
export type { FateEvents } from './engine/events.js';
export { Fate, type FateResult, type SeedOptions, type WaitOptions } from './engine/fate.js';
export { type FateLogger, stderrLogger } from './engine/logger.js';
export { type OpLimit, SLOT_OP, slotId } from './engine/op-limits.js';
export type { FateOptions, PartitionSource } from './engine/options.js';
export type { PoolOptions, PoolStats } from './engine/pools.js';
export {
  backoffMs,
  type ErrorClass,
  type ResolvedRetryPolicy,
  type RetryPolicy,
  resolveRetryPolicy,
} from './engine/retry-policy.js';
export {
  SCHEDULE_OP,
  type ScheduleState,
  scheduledKey,
  scheduleId,
} from './engine/schedule-tick.js';
export {
  type CatchUp,
  INTERNAL_OP_PREFIX,
  type ScheduleOptions,
  type StepFactory,
} from './engine/schedule-types.js';
export { MAX_READY_WAIT_MS } from './engine/step-checks.js';
export { MAX_STEP_TIMEOUT_MS, OVERDUE_GRACE_MS } from './engine/step-timeout.js';
export { type ScanTrace, type StepTrace, scanChannel, stepChannel } from './engine/tracing.js';
export { toTxError } from './engine/tx-error.js';
export * from './errors.js';
export { checkJson, MAX_JSON_DEPTH, sameReservation } from './guard/codec.js';
export { createFatesStore } from './guard/create-fates-store.js';
export { MAX_SEED_DEFER_MS } from './guard/seed-deferral.js';
export { rowMatches } from './guard/store-queries.js';
export * from './ids.js';
export type { JsonValue } from './json.js';
export { mapLimit } from './map-limit.js';
export { dropMemoryNamespace, MemoryBackend } from './memory/memory-backend.js';
export * from './partition.js';
export { ServerClock } from './server-clock.js';
export * from './status.js';
export * from './step.js';
export { TickBatch, type TickBatchRunner } from './tick-batch.js';
export {
  backendForUrl,
  DEFAULT_STORE_URL,
  type OpenOptions,
  openStore,
  type StoreModule,
} from './url/open-store.js';
export { redactStoreUrl } from './url/redact-url.js';
export {
  readUrlParams,
  type UrlParam,
  type UrlParamSpec,
  type UrlParamValues,
} from './url/url-params.js';
