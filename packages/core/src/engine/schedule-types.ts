import { Cron } from 'croner';
import { invalidArgument } from '../errors.js';
import type { Repo } from '../step.js';

/**
 * What a schedule does with due times it finds past (an engine was down, the store away):
 * `'all'` seeds each (at most `maxCatchUp`, the most recent), `'latest'` only the most
 * recent, `'none'` only those at most `graceMs` late.
 */
export type CatchUp = 'all' | 'latest' | 'none';

export interface ScheduleOptions {
  /** IANA time zone the cron pattern is read in (e.g. `Europe/Berlin`). Default UTC. */
  readonly timezone?: string;
  /** Default `'latest'`. */
  readonly catchUp?: CatchUp;
  /** With `'all'`: most due times seeded at once; older missed ones are skipped. Default 100. */
  readonly maxCatchUp?: number;
  /** With `'none'`: how late a due time may be found and still be seeded, ms. Default 60,000. */
  readonly graceMs?: number;
  /** The seeded transactions' op name. Default: the schedule's name. */
  readonly opName?: string;
  /** How long seeded transactions are kept once finished, ms. Default: the engine's retention. */
  readonly retainMs?: number;
}

/** Builds the first step of the transaction due at `due` (the cron time, on the store's clock). */
export type StepFactory<Env> = (due: Date) => Repo<Env>;

/** A schedule as an engine runs it. */
export interface CompiledSchedule<Env> {
  readonly name: string;
  readonly pattern: string;
  readonly cron: Cron;
  readonly factory: StepFactory<Env>;
  readonly catchUp: CatchUp;
  readonly maxCatchUp: number;
  readonly graceMs: number;
  readonly opName: string;
  readonly timezone?: string;
  readonly retainMs?: number;
}

/** The op names of the engine's own records; users' op names may not start with it. */
export const INTERNAL_OP_PREFIX = 'fate:';

export function compileSchedule<Env>(
  name: string,
  pattern: string,
  factory: StepFactory<Env>,
  options: ScheduleOptions = {},
): CompiledSchedule<Env> {
  if (typeof name !== 'string' || name === '' || name.includes('\u0000')) {
    throw invalidArgument('a schedule needs a non-empty name (no NUL)');
  }
  if (typeof pattern !== 'string') throw invalidArgument('a schedule needs a cron pattern');
  if (typeof factory !== 'function') throw invalidArgument('a schedule needs a step factory');
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('schedule options must be an object');
  }
  const catchUp = options.catchUp ?? 'latest';
  if (!['all', 'latest', 'none'].includes(catchUp)) {
    throw invalidArgument(`catchUp must be 'all', 'latest' or 'none', got ${String(catchUp)}`);
  }
  const maxCatchUp = options.maxCatchUp ?? 100;
  if (!Number.isSafeInteger(maxCatchUp) || maxCatchUp < 1 || maxCatchUp > 10_000) {
    throw invalidArgument('maxCatchUp must be an integer from 1 to 10,000');
  }
  const graceMs = options.graceMs ?? 60_000;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) {
    throw invalidArgument('graceMs must be an integer >= 0');
  }
  const opName = options.opName ?? name;
  if (typeof opName !== 'string' || opName === '' || opName.startsWith(INTERNAL_OP_PREFIX)) {
    throw invalidArgument(`a schedule's opName must be non-empty and not start with 'fate:'`);
  }
  const { retainMs, timezone } = options;
  if (retainMs !== undefined && (!Number.isSafeInteger(retainMs) || retainMs < 0)) {
    throw invalidArgument('retainMs must be an integer >= 0');
  }
  let cron: Cron;
  try {
    // paused and without a callback: croner only computes times, it starts no timer
    cron = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : { utcOffset: 0 }) });
    cron.nextRun(new Date(0)); // an unknown time zone shows only when a time is computed
  } catch (cause) {
    throw invalidArgument(
      `schedule ${name}: bad cron pattern or time zone: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
  return {
    name,
    pattern,
    cron,
    factory,
    catchUp,
    maxCatchUp,
    graceMs,
    opName,
    ...(timezone ? { timezone } : {}),
    ...(retainMs !== undefined ? { retainMs } : {}),
  };
}

/** What one judgement of a schedule found: due times to seed, and how far it got. */
export interface DueTimes {
  /** Due times to seed now, oldest first (epoch ms, store clock). */
  readonly seed: number[];
  /** Due times in the window it skipped by the catch-up rule (at least; older are not counted). */
  readonly skipped: number;
  /** Everything up to this is judged: the next judgement starts after it. */
  readonly through: number;
}

/**
 * The due times in `(through, now]` and what the catch-up rule does with them. Only the
 * most recent `maxCatchUp + 1` are listed (croner walks back from `now`), so a schedule
 * last judged a year ago costs the same as one judged a second ago.
 */
export function dueTimes(s: CompiledSchedule<unknown>, through: number, now: number): DueTimes {
  if (now <= through) return { seed: [], skipped: 0, through };
  const window = s.catchUp === 'latest' ? 1 : s.maxCatchUp;
  const recent = s.cron
    .previousRuns(window + 1, new Date(now + 1))
    .map((d) => d.getTime())
    .filter((t) => t > through && t <= now); // most recent first
  let seed = recent.slice(0, window);
  if (s.catchUp === 'none') seed = seed.filter((t) => now - t <= s.graceMs);
  // more than the window: at least one older due time was skipped, uncounted beyond it
  const skipped = recent.length - seed.length;
  return { seed: seed.reverse(), skipped, through: now };
}

/** The next due time after `now`, or undefined when the pattern has none. */
export function nextDue(s: CompiledSchedule<unknown>, now: number): number | undefined {
  return s.cron.nextRun(new Date(now))?.getTime();
}
