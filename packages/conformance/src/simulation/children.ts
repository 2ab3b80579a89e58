import { awaitChildren, childKey, type FateId, keyedFateId, type Repo } from '@fate/core';
import fc from 'fast-check';
import { faultyWorldArb, sorted } from './faulty-world.js';
import type { SimEvent } from './history.js';
import type { FinalRecord } from './invariants.js';
import { type ChildrenSpec, rare, SCENARIO_MS, type Scenario, type TxSpec } from './scenario.js';
import { firstStep, plainStep, type SimEnv, type StepSpec } from './steps.js';

/** A parked parent looks again only after this long: a wake that is dropped shows. */
export const CHILD_RECHECK_MS = 30_000;

const kidStepArb: fc.Arbitrary<StepSpec> = fc
  .tuple(fc.integer({ min: 0, max: 1_500 }), fc.boolean(), rare(4))
  .map(([callMs, ignoresSignal, throws]) => ({ ...plainStep(callMs, ignoresSignal), throws }));

const parentArb: fc.Arbitrary<TxSpec> = fc
  .record({
    kids: fc.array(fc.array(kidStepArb, { minLength: 1, maxLength: 2 }), {
      minLength: 1,
      maxLength: 3,
    }),
    continueOnFailure: fc.boolean(),
    afterMs: fc.integer({ min: 0, max: 500 }),
  })
  .map((g) => ({
    op: 'a' as const,
    autoClean: false,
    steps: [plainStep(g.afterMs)],
    children: { kids: g.kids, continueOnFailure: g.continueOnFailure, recheckMs: CHILD_RECHECK_MS },
  }));

/**
 * Child transactions under faults (issue 25): 1–3 parents seeded at once, each awaiting 1–3
 * children (some failing, with or without `continueOnFailure`), on 1–3 engines crashed,
 * restarted, paused, stalled or shut down, and store calls delayed, failed, lost or held.
 */
export const childScenarios: fc.Arbitrary<Scenario> = childrenWithin(SCENARIO_MS);

/** `childScenarios` whose commands fall within `scenarioMs` (a real-time run's is shorter). */
export function childrenWithin(scenarioMs: number): fc.Arbitrary<Scenario> {
  const world = faultyWorldArb(scenarioMs, {
    layouts: ['one', 'two'],
    scanners: ['range'],
    maxWorkers: 3,
  });
  const seed = fc.record({
    at: fc.integer({ min: 0, max: Math.min(3_000, scenarioMs) }),
    parents: fc.array(parentArb, { minLength: 1, maxLength: 3 }),
  });
  return fc.tuple(world, seed).map(
    ([w, g]): Scenario => ({
      ...w,
      retentionMs: 60_000,
      ageOffCheckMs: 10_000,
      commands: sorted([
        { at: g.at, kind: 'seed' as const, many: true, txs: g.parents },
        ...w.commands,
      ]),
    }),
  );
}

/** The name of a parent's `i`-th child. */
export const childName = (i: number): string => `c${i}`;

/** A parent's first step: its children (`c<i>`, op `a`), then `steps`. */
export function parentStep(spec: ChildrenSpec, steps: readonly StepSpec[]): Repo<SimEnv> {
  const children = spec.kids.map((kid, i) => ({
    name: childName(i),
    opName: 'a',
    step: firstStep(kid),
  }));
  return awaitChildren(children, firstStep(steps), {
    continueOnFailure: spec.continueOnFailure,
    recheckMs: spec.recheckMs,
  });
}

/**
 * (9) Children: a parent's step after `awaitChildren` begins only once every child finished,
 * and sees each child's outcome as it ended; a failed child fails the parent (it ends FAILED
 * and never goes past) unless `continueOnFailure`; no child is inserted twice; and the
 * parent goes on (or fails) within `boundMs` of its last child finishing — whoever parked
 * it, alive or not — unless the engine that finished that child crashed, paused or shut
 * down, or a store call was faulty, around then (then its re-check is the backstop).
 */
export function checkChildren(
  events: readonly SimEvent[],
  parents: ReadonlyMap<string, ChildrenSpec>,
  records: readonly FinalRecord[],
  o: { readonly boundMs: number },
): string[] {
  const out: string[] = [];
  const finished = new Map<string, Extract<SimEvent, { e: 'finished' }>>();
  const inserts = new Map<string, number>();
  for (const e of events) {
    if (e.e === 'finished' && !finished.has(e.id)) finished.set(e.id, e);
    if (e.e === 'inserted') inserts.set(e.id, (inserts.get(e.id) ?? 0) + 1);
  }
  for (const [parent, spec] of parents) {
    const kids = spec.kids.map((_, i) => keyedFateId(childKey(parent as FateId, childName(i))));
    const ends = spec.kids.map((steps) => (steps.some((s) => s.throws) ? 'FAILED' : 'SUCCESSFUL'));
    kids.forEach((id, i) => {
      if ((inserts.get(id) ?? 0) > 1)
        out.push(`${parent}: child ${childName(i)} was inserted ${inserts.get(id)} times`);
    });
    const seen = events.filter(
      (e): e is Extract<SimEvent, { e: 'outcomes' }> => e.e === 'outcomes' && e.id === parent,
    );
    for (const ev of seen) {
      kids.forEach((id, i) => {
        const status = ev.seen[childName(i)];
        const done = finished.get(id);
        if (status !== ends[i] || !done || done.t > ev.t) {
          out.push(
            `at ${ev.t} ms: ${parent} went past awaitChildren seeing child ${childName(i)} ${status} (it ends ${ends[i]}${done ? ` at ${done.t} ms` : ', not finished then'})`,
          );
        }
      });
    }
    // the record, or how it finished if age-off removed it since
    const final = records.find((r) => r.id === parent)?.status ?? finished.get(parent)?.status;
    const fails = ends.includes('FAILED') && !spec.continueOnFailure;
    if (fails && (seen.length > 0 || final !== 'FAILED')) {
      out.push(`${parent}: a child failed, yet it went on past awaitChildren or ended ${final}`);
    }
    if (!fails && final === 'FAILED') {
      out.push(`${parent} ended FAILED, though its children's outcomes did not fail it`);
    }
    out.push(...checkWoken(events, parent, kids, finished, o.boundMs));
  }
  return out;
}

function checkWoken(
  events: readonly SimEvent[],
  parent: string,
  kids: readonly string[],
  finished: ReadonlyMap<string, Extract<SimEvent, { e: 'finished' }>>,
  boundMs: number,
): string[] {
  const dones = kids.map((id) => finished.get(id));
  if (dones.some((d) => d === undefined)) return [];
  const last = dones.reduce((a, b) => ((b?.t ?? 0) > (a?.t ?? 0) ? b : a));
  if (!last) return [];
  const woke = events.find(
    (e) => (e.e === 'outcomes' || e.e === 'finished') && e.id === parent && e.t >= last.t,
  );
  if (woke && woke.t <= last.t + boundMs) return [];
  const from = last.t - boundMs;
  const to = last.t + boundMs;
  const excused = events.some(
    (e) =>
      e.t >= from &&
      e.t <= to &&
      (e.e === 'fault' ||
        (e.e === 'process' &&
          (/^(pause|stall)/.test(e.what) || (e.name === last.client && e.what !== 'stopped')))),
  );
  if (excused) return [];
  return [
    `${parent}: its last child finished at ${last.t} ms (in ${last.client}), but it went on only ${woke ? `at ${woke.t} ms` : 'never'} (bound ${boundMs} ms)`,
  ];
}
