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
export type { CatchUp, ScheduleOptions, StepFactory } from './engine/schedule-types.js';
export { MAX_READY_WAIT_MS } from './engine/step-checks.js';
export { MAX_STEP_TIMEOUT_MS, OVERDUE_GRACE_MS } from './engine/step-timeout.js';
export { type ScanTrace, type StepTrace, scanChannel, stepChannel } from './engine/tracing.js';
export { toTxError } from './engine/tx-error.js';
export * from './errors.js';
export * from './ids.js';
export type { JsonValue } from './json.js';
export { mapLimit } from './map-limit.js';
export { dropMemoryNamespace, MemoryBackend } from './memory/memory-backend.js';
export * from './partition.js';
export { ServerClock } from './server-clock.js';
export * from './status.js';
export * from './step.js';
export type {
  BackendScan,
  InstanceRecord,
  NewRecord,
  RecordWrite,
  ReservationFilter,
  StoreBackend,
  StoredRecord,
} from './store/backend.js';
export type { ClaimedRecord, StoreBackendClaims } from './store/backend-claims.js';
export type {
  BackendAgeOffQuery,
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendListRow,
  FinishedEntry,
  StoreBackendQueries,
} from './store/backend-queries.js';
export { declareCapabilities, type StoreCapabilities } from './store/capabilities.js';
export { type ClaimOptions, type ClaimResult, MAX_CLAIM } from './store/claims.js';
export { checkJson, MAX_JSON_DEPTH, sameReservation } from './store/codec.js';
export type { FateStore, TxChange } from './store/fate-store.js';
export type { FatesStore } from './store/fates-store.js';
export { createFatesStore } from './store/guarded-fates-store.js';
export { MAX_STACK_DEPTH } from './store/limits.js';
export { instanceIdOf } from './store/lock-id.js';
export {
  backendForUrl,
  DEFAULT_STORE_URL,
  type OpenOptions,
  openStore,
  type StoreModule,
} from './store/open-store.js';
export { resolveStoreOptions, type StoreOptions } from './store/options.js';
export * from './store/query-types.js';
export { redactStoreUrl } from './store/redact-url.js';
export { MAX_SEED_DEFER_MS } from './store/seed-deferral.js';
export { rowMatches } from './store/store-queries.js';
export * from './store/types.js';
export {
  readUrlParams,
  type UrlParam,
  type UrlParamSpec,
  type UrlParamValues,
} from './store/url-params.js';
