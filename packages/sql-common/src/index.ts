export {
  type AgeOffDueArgs,
  adminQueries,
  LIST_WINDOW,
  type ListRowColumns,
  mergeDue,
  toCounts,
  toListPage,
} from './sql-admin.js';
export {
  type ClaimableArgs,
  type ClaimedRow,
  type ClaimOneArgs,
  claimQueries,
  toClaimed,
} from './sql-claims.js';
export type { SqlDialect } from './sql-dialect.js';
export {
  createAgeOffIndexes,
  createLivenessTable,
  createMetaTable,
  createReservedIndex,
  createRunnableIndex,
  createStatusOpIndex,
} from './sql-migrations.js';
export { NamedQuery } from './sql-named.js';
export {
  addPriority,
  createRunnableLevelIndex,
  type LevelArgs,
  levelStart,
  levelWalk,
} from './sql-priority.js';
export {
  type FateQueries,
  type Fence,
  fateQueries,
  type HeartbeatArgs,
  type InsertArgs,
  RECORD_COLUMNS,
  type ScanArgs,
  type ScanRow,
  type WriteArgs,
} from './sql-queries.js';
export {
  forRange,
  mapShapes,
  type RangeArgs,
  type RangeShapes,
  rangeShapes,
} from './sql-ranges.js';
export {
  fence,
  holderVerdict,
  type LivenessRowRead,
  livenessRecords,
  type RecordColumns,
  type ReservedRow,
  scanPage,
  toRecord,
  toReservations,
  writeArgs,
} from './sql-records.js';
export {
  DUE_INDEX,
  type FateMetaRow,
  type FateSchema,
  FINISHED_INDEX,
  type LivenessRow,
  RESERVED_INDEX,
  RUNNABLE_INDEX,
  runnableUnreserved,
  STATUS_OP_INDEX,
  type TransactionRow,
} from './sql-schema.js';
