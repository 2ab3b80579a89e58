import type { FateId, NewRecord } from '@fate/core';
import type { Statements } from './sqlite-statements.js';

/** Inserts one record unless its id exists; whether it did. */
export function insertOne(statements: Statements, id: FateId, record: NewRecord): boolean {
  const { status, stack, info, op, deferMs = 0, priority = 0 } = record;
  return statements.insert.run({ id, status, stack, info, op, deferMs, priority }).changes === 1;
}
