import { invalidArgument } from '../errors.js';

/**
 * Priorities (issue 25): a small integer range, so stores with lexicographic or per-level
 * indexes can scan level by level instead of sorting. Higher runs first; 0 is the default.
 */
export const MIN_PRIORITY = -5;
export const MAX_PRIORITY = 5;
export const DEFAULT_PRIORITY = 0;

/** Every level, highest first: the order scans and claims walk them in. */
export const PRIORITY_LEVELS: readonly number[] = Array.from(
  { length: MAX_PRIORITY - MIN_PRIORITY + 1 },
  (_, i) => MAX_PRIORITY - i,
);

/** A seed's priority, checked: an integer in `MIN_PRIORITY..MAX_PRIORITY`, absent = 0. */
export function checkPriority(value: unknown): number {
  if (value === undefined) return DEFAULT_PRIORITY;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalidArgument(`priority must be an integer, got ${String(value)}`);
  }
  if (value < MIN_PRIORITY || value > MAX_PRIORITY) {
    throw invalidArgument(`priority must be in ${MIN_PRIORITY}..${MAX_PRIORITY}, got ${value}`);
  }
  return value;
}

/**
 * A place in the runnable order `(priority descending, id ascending)`: a scan that goes on
 * after it reads the rest of this level after `id`, then every lower level whole.
 */
export interface RunnablePosition {
  readonly priority: number;
  readonly id: string;
}

/** Negative when `a` comes first in the runnable order (higher priority, then lower id). */
export function compareRunnable(
  a: { readonly priority: number; readonly id: string },
  b: { readonly priority: number; readonly id: string },
): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
