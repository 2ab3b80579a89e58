import { FINISHED_STATUSES, type Status, type TxInfo } from '@fate/core';
import type { SimEvent } from './history.js';
import { type CallSpan, callSpans, leases, type Span, type StepEvent } from './spans.js';

export type { StepEvent };

/** A record as the store holds it at the end of a run. */
export interface FinalRecord {
  readonly id: string;
  readonly status: string;
  /** The lock id holding it, if any. */
  readonly holder: string | undefined;
  readonly defer?: number;
  /** Its stored retry count (`info.retry`): the step's depth and its failed attempts. */
  readonly retry?: { readonly depth: number; readonly attempts: number };
}

/**
 * The invariants checked on a run's history once it is quiet (those judged at the instant —
 * deletes of unfinished records, hot loops — are in the history as violations already):
 * (1) no `call` begins in a holder whose lease is not valid then, and no two holders run a
 * call of one transaction at once while both leases are valid; (2) every record ends
 * SUCCESSFUL or FAILED; a failed one had every step whose call began undone, newest first;
 * a cancelled one ran nothing after the cancel; (5) a seed is told `created` at most once
 * per insert the store applied. `leaseMs` is the engines' lease: valid from a heartbeat's
 * reply until `leaseMs` after it was sent, as `Lease` counts it.
 */
export function checkHistory(
  events: readonly SimEvent[],
  records: readonly FinalRecord[],
  options: {
    readonly leaseMs: number;
    /** How far the store's clock and the history's may disagree (0 in virtual time). */
    readonly clockSlackMs?: number;
  },
): string[] {
  const out: string[] = [];
  const end = events.reduce((m, e) => Math.max(m, e.t), 0) + 1;
  const valid = leases(events, options.leaseMs);
  const spansOf = (lockId: string): Span[] => valid.get(lockId) ?? [];
  const steps = events.filter(
    (e): e is StepEvent => e.e === 'call' || e.e === 'undo' || e.e === 'ready',
  );
  // (1) a call begins only under a valid lease
  for (const e of steps) {
    if (e.e !== 'call' || e.end) continue;
    if (!spansOf(e.lockId).some(([a, b]) => a <= e.t && e.t < b)) {
      out.push(
        `at ${e.t} ms: call of step ${e.index} of ${e.id} began in ${e.lockId} whose lease was not valid`,
      );
    }
  }
  // (1) no two live holders run a call of one transaction at once. A call counts as run by
  // a live holder from its beginning to the end of the lease stretch it began in: a lapse
  // ends every run begun before it (its signal is aborted), so a step that ignores its
  // signal and runs on past that is the case the failure model leaves out.
  const calls = callSpans(steps, end);
  for (const [id, list] of calls) {
    const live = list.flatMap((c) => {
      const stretch = spansOf(c.lockId).find(([a, b]) => a <= c.from && c.from < b);
      return stretch ? [{ ...c, to: Math.min(c.to, stretch[1]) }] : [];
    });
    for (let i = 0; i < live.length; i++) {
      for (let j = i + 1; j < live.length; j++) {
        const a = live[i] as CallSpan;
        const b = live[j] as CallSpan;
        const from = Math.max(a.from, b.from);
        if (from < Math.min(a.to, b.to)) {
          out.push(
            `at ${from} ms: ${id} ran step ${a.index} in ${a.lockId} and step ${b.index} in ${b.lockId} at once, both leases valid since the calls began`,
          );
        }
      }
    }
  }
  // (2) outcomes
  const present = new Map(records.map((r) => [r.id, r]));
  for (const r of records) {
    if (!FINISHED_STATUSES.has(r.status as Status))
      out.push(
        `${r.id} is stuck ${r.status} at the end${r.holder ? `, held by ${r.holder}` : ''}${r.defer ? `, deferred until ${r.defer}` : ''}`,
      );
  }
  for (const [id, mine] of byIncarnation(events)) {
    const record = present.get(id);
    const began = new Set(mine.flatMap((e) => (e.e === 'call' && !e.end ? [e.index] : [])));
    // a cancel counts for this incarnation when it began in it, or an admin's write finished
    // this incarnation before the cancel ended: one begun on an earlier incarnation whose
    // reply was slow may end after the record was deleted and seeded again (and another
    // cancel may have begun on this one meanwhile: begin and end are paired by number)
    const cancelled = mine.find(
      (e, i) =>
        e.e === 'admin' &&
        e.op === 'cancel' &&
        e.end &&
        e.outcome === 'ok' &&
        mine
          .slice(0, i)
          .some(
            (b) =>
              (b.e === 'admin' && !b.end && b.n === e.n) ||
              (b.e === 'finished' && b.client === 'admin'),
          ),
    );
    if (cancelled) {
      const late = mine.find((e) => e.e === 'call' && !e.end && e.t > cancelled.t);
      if (late)
        out.push(`${id} was cancelled at ${cancelled.t} ms, yet a step call began at ${late.t} ms`);
    }
    if (record?.status !== 'FAILED') continue;
    const undoEnds = (k: number) =>
      mine
        .filter((e) => e.e === 'undo' && e.end && e.index === k && e.outcome !== 'aborted')
        .map((e) => e.t);
    const lastUndoBegin = (k: number) =>
      Math.max(...mine.filter((e) => e.e === 'undo' && !e.end && e.index === k).map((e) => e.t));
    for (const k of began) {
      if (undoEnds(k).length === 0)
        out.push(`${id} ended FAILED but step ${k}, whose call began, was never undone`);
      for (const j of began) {
        if (j >= k || undoEnds(k).length === 0) continue;
        if (!undoEnds(k).some((t) => t <= lastUndoBegin(j))) {
          out.push(`${id}: step ${j} was undone before step ${k} (not newest first)`);
        }
      }
    }
  }
  out.push(...checkDeferredSeeds(events, options.clockSlackMs ?? 0));
  out.push(...checkRetryCounts(events, records));
  // (5) keyed seeding: told created at most once per applied insert
  const created = new Map<string, number>();
  for (const e of events) {
    if (e.e === 'inserted') created.set(e.id, (created.get(e.id) ?? 0) + 1);
    if (e.e === 'seed' && e.created) {
      const left = (created.get(e.id) ?? 0) - 1;
      if (left < 0)
        out.push(
          `at ${e.t} ms: a seed of ${e.id}${e.key ? ` (key ${e.key})` : ''} was told created, but no insert of it is left to account for that`,
        );
      created.set(e.id, left);
    }
  }
  return out;
}

/** The events of each id's last incarnation (from its last applied insert on). */
function byIncarnation(events: readonly SimEvent[]): Map<string, SimEvent[]> {
  const out = new Map<string, SimEvent[]>();
  for (const e of events) {
    if (!('id' in e)) continue;
    if (e.e === 'inserted') out.set(e.id, []);
    out.get(e.id)?.push(e);
  }
  return out;
}

/**
 * (6) A seed deferred at insert: no `isReady` or `call` of it begins before the insert plus
 * its deferral (the store's clock; the history's may be `slackMs` off on a real store).
 */
function checkDeferredSeeds(events: readonly SimEvent[], slackMs: number): string[] {
  const out: string[] = [];
  for (const [id, mine] of byIncarnation(events)) {
    const insert = mine[0];
    if (insert?.e !== 'inserted' || !insert.deferMs) continue;
    const due = insert.t + insert.deferMs - slackMs;
    const early = mine.find((e) => (e.e === 'call' || e.e === 'ready') && !e.end && e.t < due);
    if (early) {
      out.push(
        `${id} was seeded at ${insert.t} ms deferred ${insert.deferMs} ms, yet its ${early.e} began at ${early.t} ms`,
      );
    }
  }
  return out;
}

/**
 * (7) A stored retry count never exceeds the calls of that step that began in the record's
 * incarnation: an attempt is counted once, by one holder, never carried over.
 */
function checkRetryCounts(events: readonly SimEvent[], records: readonly FinalRecord[]): string[] {
  const out: string[] = [];
  const incarnations = byIncarnation(events);
  for (const r of records) {
    if (!r.retry) continue;
    const index = r.retry.depth - 1;
    const began = (incarnations.get(r.id) ?? []).filter(
      (e) => e.e === 'call' && !e.end && e.index === index,
    ).length;
    if (r.retry.attempts > began) {
      out.push(
        `${r.id} counts ${r.retry.attempts} failed attempts of step ${index}, but only ${began} of its calls began`,
      );
    }
  }
  return out;
}

/** A record's stored retry count, when its info has one. */
export function retryOf(info: string): Pick<FinalRecord, 'retry'> {
  try {
    const retry = (JSON.parse(info) as TxInfo).retry;
    return retry ? { retry: { depth: retry.depth, attempts: retry.attempts } } : {};
  } catch {
    return {};
  }
}
