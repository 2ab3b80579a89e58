import { usageError } from '../cli-error.js';

export interface DemoOptions {
  /** Store URL; default: a fresh SQLite file in ./.fate-demo. */
  readonly store?: string;
  /** Orders to seed; default 1,000. */
  readonly orders?: number;
  /** Engine processes; default 3. One of them is killed mid-run. */
  readonly processes?: number;
  /** Give up (with an error, never a hang) when the orders have not all finished by then; default 120. */
  readonly timeoutSeconds?: number;
  /** How the printed admin commands start; default `fate`. */
  readonly adminCommand?: string;
}

/** The range and default of each number the demo takes; the command line names them `--<name>`. */
const LIMITS = {
  orders: { min: 1, max: 1_000_000, fallback: 1_000, why: '' },
  processes: {
    min: 2,
    max: 32,
    fallback: 3,
    why: ' (one is killed mid-run and the others take over its work)',
  },
  timeout: { min: 1, max: 86_400, fallback: 120, why: ' (seconds)' },
} as const;

/**
 * One number of the demo, from the command line (text) or a caller (number): a whole
 * number in its range, else a usage error that names the option and the value.
 */
export function demoNumber(name: keyof typeof LIMITS, value: string | number | undefined): number {
  const { min, max, fallback, why } = LIMITS[name];
  if (value === undefined) return fallback;
  const text = String(value);
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw usageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}${why}`,
    );
  }
  return n;
}
