import { invalidArgument } from '../errors.js';
import type { Repo } from '../step.js';

/** The longest wait `isReady` may ask for; longer ones are cut to it, with a warning. */
export const MAX_READY_WAIT_MS = 24 * 60 * 60 * 1_000;

/**
 * The one rule for what `isReady` returns: a finite number; 0 or less is "ready now";
 * more than a day is cut to a day (a typo of units should not park work for years).
 * Anything else is an error of the step, which fails the transaction.
 */
export function readyWait(value: unknown, repo: Repo<never>, warn: (m: string) => void): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalidArgument(
      `isReady of step ${repo.type} returned ${describe(value)}; it must return a finite number of ms`,
    );
  }
  if (value > MAX_READY_WAIT_MS) {
    warn(`isReady of step ${repo.type} asked to wait ${value} ms; waiting a day instead`);
    return MAX_READY_WAIT_MS;
  }
  return value > 0 ? Math.ceil(value) : 0;
}

/** What `call` returned must be a step (or nothing); say what it was otherwise. */
export function checkNextStep<R extends Repo<never>>(value: unknown, repo: R): R | undefined {
  if (value === undefined || value === null) return undefined;
  const step = value as Partial<Repo<never>>;
  if (
    typeof value !== 'object' ||
    typeof step.type !== 'string' ||
    typeof step.call !== 'function' ||
    typeof step.state !== 'function'
  ) {
    throw invalidArgument(
      `call of step ${repo.type} returned ${describe(value)}; it must return the next step or undefined`,
    );
  }
  return value as R;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 50))}`;
  if (typeof value === 'object' && value !== null) {
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    return `an object (${name ?? 'no prototype'}) that is not a step`;
  }
  return `${typeof value} ${String(value)}`;
}
