import fc from 'fast-check';
import type { FaultDecision } from './faults.js';
import { type Command, type EngineSpec, faultArb, type Scenario } from './scenario.js';

/**
 * What may happen to the engines of a scenario aimed at one feature: crashes, restarts
 * under the same instance id, pauses, heartbeat stalls and shutdowns, within `scenarioMs`.
 */
export function processCommandArb(scenarioMs: number): fc.Arbitrary<Command> {
  const at = fc.integer({ min: 0, max: scenarioMs });
  const engine = fc.integer({ min: 0, max: 2 });
  return fc.oneof(
    fc.record({ at, kind: fc.constantFrom('crash' as const, 'restart' as const), engine }),
    fc.record({
      at,
      kind: fc.constantFrom('pause' as const, 'stall' as const),
      engine,
      ms: fc.integer({ min: 100, max: 4_000 }),
    }),
    fc.record({
      at,
      kind: fc.constant('shutdown' as const),
      engine,
      timeoutMs: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: undefined }),
    }),
  );
}

/** Commands in time order. */
export function sorted(commands: readonly Command[]): Command[] {
  return [...commands].sort((a, b) => a.at - b.at);
}

/** The part of a scenario aimed at one feature that is the same for every feature. */
export type FaultyWorld = Pick<
  Scenario,
  'salt' | 'livenessTimeoutMs' | 'engines' | 'commands' | 'faults'
>;

/**
 * 1–3 engines of `layouts` and `scanners` (one scanner for all) with 1–`maxWorkers` workers,
 * a liveness timeout of 1 or 2 s, up to 4 engine commands within `scenarioMs`, and a fault
 * plan of up to 12 entries.
 */
export function faultyWorldArb(
  scenarioMs: number,
  o: {
    readonly layouts: ReadonlyArray<EngineSpec['layout']>;
    readonly scanners: ReadonlyArray<EngineSpec['scanner']>;
    readonly maxWorkers: number;
  },
): fc.Arbitrary<FaultyWorld> {
  return fc
    .record({
      salt: fc.nat(),
      livenessTimeoutMs: fc.constantFrom(1_000, 2_000),
      engines: fc.integer({ min: 1, max: 3 }),
      workers: fc.integer({ min: 1, max: o.maxWorkers }),
      layout: fc.constantFrom(...o.layouts),
      scanner: fc.constantFrom(...o.scanners),
      commands: fc.array(processCommandArb(scenarioMs), { maxLength: 4 }),
      faults: fc.array(faultArb, { maxLength: 12 }),
    })
    .map((g) => ({
      salt: g.salt,
      livenessTimeoutMs: g.livenessTimeoutMs,
      engines: Array.from({ length: g.engines }, () => ({
        layout: g.layout,
        workers: g.workers,
        scanner: g.scanner,
      })),
      commands: sorted(g.commands),
      faults: g.faults,
    }));
}

/** A fault plan of slow calls only: 1–`maxLength` calls, `maxGap` apart at most, delayed. */
export function slowCallsArb(o: {
  readonly maxGap: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxLength: number;
}): fc.Arbitrary<FaultDecision[]> {
  return fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: o.maxGap }),
      delayMs: fc.integer({ min: o.minDelayMs, max: o.maxDelayMs }),
      fault: fc.constant('none' as const),
    }),
    { minLength: 1, maxLength: o.maxLength },
  );
}
