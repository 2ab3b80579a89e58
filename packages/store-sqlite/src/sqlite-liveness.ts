import type { InstanceRecord } from '@fate/core';
import { livenessRecords } from '@fate/sql-common';
import { isBusy } from './sqlite-busy.js';
import type { Statements } from './sqlite-statements.js';

/** Every liveness record; also deletes those past their time (crashed engines' rows must not pile up). */
export function readInstances(statements: Statements): InstanceRecord[] {
  const { records, lapsed } = livenessRecords(statements.liveness.all({}));
  // Only when something is due: the delete takes the write lock, the read does not.
  if (lapsed) pruneLiveness(statements);
  return records;
}

/**
 * Store hygiene, best effort: another process holding the write lock will prune on its
 * own next look, so a busy file skips this rather than fail or delay the read.
 */
function pruneLiveness(statements: Statements): void {
  try {
    statements.forget.run({});
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}
