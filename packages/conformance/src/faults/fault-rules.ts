/** The backend operations a fault can be injected into. */
export type FaultOp =
  | 'insert'
  | 'insertMany'
  | 'read'
  | 'tryReserve'
  | 'write'
  | 'clearReservation'
  | 'list'
  | 'scanRunnable'
  | 'reservations'
  | 'heartbeat'
  | 'instances'
  | 'ageOffDue'
  | 'counts'
  | 'listPage'
  | 'deleteAgedOff'
  | 'claimMany'
  | 'finishAndClaim';

/**
 * What a fault does to a call:
 * - `lose-reply`: the store applies the call, then the reply is lost (the caller gets an
 *   error, as on a command timeout or a dropped connection);
 * - `fail`: the call fails without reaching the store;
 * - `drop`: the store acknowledges the call without applying it, as a store that later
 *   loses an acknowledged write (a restart that rolled back its log) looks to the caller.
 *   For operations answering true/false only: the caller gets `true`.
 */
export type FaultKind = 'lose-reply' | 'fail' | 'drop';

/** The error an injected fault throws; the guard reports it as FATE_STORE_UNAVAILABLE. */
export class InjectedFault extends Error {
  constructor(what: string) {
    super(`injected fault: ${what}`);
    this.name = 'InjectedFault';
  }
}

/** One injected fault: the next `remaining` calls of `op` that `when` accepts get `kind`. */
export interface Rule {
  readonly kind: FaultKind;
  readonly op: FaultOp;
  remaining: number;
  readonly when: ((...args: never[]) => boolean) | undefined;
}

/** The first rule that applies to this call of `op`, consumed once (rules apply in order). */
export function takeRule(rules: readonly Rule[], op: FaultOp, args: unknown[]): Rule | undefined {
  const rule = rules.find(
    (r) => r.op === op && r.remaining > 0 && (!r.when || r.when(...(args as never[]))),
  );
  if (rule) rule.remaining--;
  return rule;
}
