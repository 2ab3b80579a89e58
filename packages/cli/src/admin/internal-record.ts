import { INTERNAL_OP_PREFIX, type JsonValue } from '@fate/core';

/** The label `fate show` gives what it says about one of the engine's own records. */
export const INTERNAL_LABEL = 'fate record';

/** True for the op names of the engine's own records (`fate:…`: NEW by design, never run). */
export function isInternalOp(opName: string | undefined): boolean {
  return opName?.startsWith(INTERNAL_OP_PREFIX) === true;
}

/**
 * What `fate show` says about one of the engine's own records (op names `fate:…`, status
 * NEW, never run): a schedule's judgement so far, or a slot of a cluster-wide limit; and
 * whose child a transaction is.
 */
export function describeInternal(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, JsonValue>;
  if (v.kind === 'schedule') {
    const through = typeof v.through === 'number' ? new Date(v.through).toISOString() : '?';
    const pending = Array.isArray(v.pending) ? v.pending.length : 0;
    const tz = typeof v.timezone === 'string' ? ` in ${v.timezone}` : ' (UTC)';
    return `schedule ${JSON.stringify(v.name)}: cron "${String(v.pattern)}"${tz}; due times judged through ${through}; ${pending} seeded and not yet submitted`;
  }
  if (v.kind === 'slot') {
    return `slot ${String(v.index)} of the cluster-wide limit of op ${JSON.stringify(v.op)} (held = one run of it; deferred = its rate)`;
  }
  if (v.kind === 'child') {
    return `child ${JSON.stringify(v.name)} of ${String(v.parent)} (its parent is woken when it finishes)`;
  }
  return `fate's own record: ${JSON.stringify(value)}`;
}
