import type { FatesStore } from '../contract/fates-store.js';
import { checkPriority } from '../contract/priority.js';
import type { TxError } from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument, isFateError } from '../errors.js';
import { type FateId, keyedFateId } from '../ids.js';
import type { JsonValue } from '../json.js';
import { FINISHED_STATUSES, Status } from '../status.js';
import type { Repo, StepData, StepType } from '../step.js';
import { BIND_SCOPE, type ChildScope, type ScopedStep, scopeOf } from './child-scope.js';
import { cancel } from './client-calls.js';

/** One child transaction: a name unique within its parent, its op and first step. */
export interface ChildSpec {
  readonly name: string;
  readonly opName: string;
  readonly step: Repo<never> | Repo<unknown>;
  /** Its priority (-5..5); absent: the parent's, as stored when the children are seeded. */
  readonly priority?: number;
}

/** How a child ended, as the parent's next step sees it (in its state, under `children`). */
export interface ChildOutcome {
  readonly id: FateId;
  readonly status: Status;
  readonly returnValue?: JsonValue;
  readonly error?: TxError;
}

export interface AwaitChildrenOptions {
  /** A failed child does not fail the parent's step: `next` sees it in the outcomes. */
  readonly continueOnFailure?: boolean;
  /** The parked parent is looked at again after this long even if no child woke it, ms. Default 5 min. */
  readonly recheckMs?: number;
}

const SEED = 'fate:children';
const WAIT = 'fate:children-wait';
const DEFAULT_RECHECK_MS = 5 * 60_000;

interface WaitState {
  readonly children: ReadonlyArray<{ readonly name: string; readonly id: FateId }>;
  readonly next: StepData;
  readonly continueOnFailure: boolean;
  readonly recheckMs: number;
}
interface SeedState extends Omit<WaitState, 'children'> {
  readonly children: ReadonlyArray<{
    readonly name: string;
    readonly opName: string;
    readonly step: StepData;
    readonly priority?: number;
  }>;
}

/** The key of a parent's child: one per parent and name, however often the seed runs. */
export function childKey(parent: FateId, name: string) {
  return { type: 'fate:child', key: `${parent}/${name}` };
}

/**
 * A step that seeds `children` (keyed by this transaction's id and each name, so a repeat
 * seeds nothing twice) and parks this transaction until every child finished — no worker
 * held, no polling: a stored deferral of `recheckMs`, cleared by the engine that finishes
 * the last child. Then `next` runs with `children: { [name]: ChildOutcome }` added to its
 * state (an object). A FAILED child fails this step, and so rolls the parent back, unless
 * `continueOnFailure`. Undoing it cancels the children that have not begun.
 */
export function awaitChildren<Env>(
  children: readonly ChildSpec[],
  next: Repo<Env>,
  options: AwaitChildrenOptions = {},
): Repo<Env> {
  if (!Array.isArray(children) || children.length === 0)
    throw invalidArgument('awaitChildren needs children');
  const names = new Set(children.map((c) => c?.name));
  if (names.size !== children.length || [...names].some((n) => typeof n !== 'string' || n === '')) {
    throw invalidArgument('each child needs a name, unique within its parent');
  }
  const recheckMs = options.recheckMs ?? DEFAULT_RECHECK_MS;
  if (!Number.isSafeInteger(recheckMs) || recheckMs < 1)
    throw invalidArgument('recheckMs must be an integer >= 1');
  return new SeedChildren({
    children: children.map((c) => ({
      name: c.name,
      opName: c.opName,
      step: data(c.step),
      ...(c.priority !== undefined ? { priority: checkPriority(c.priority) } : {}),
    })),
    next: data(next),
    continueOnFailure: options.continueOnFailure === true,
    recheckMs,
  }) as Repo<Env>;
}

function data(repo: Repo<never> | Repo<unknown>): StepData {
  if (typeof repo?.state !== 'function') throw invalidArgument('a child or next step is a Repo');
  return { type: repo.type, state: repo.state() };
}

class SeedChildren implements Repo<unknown>, ScopedStep {
  #scope: ChildScope | undefined;
  readonly type = SEED;
  constructor(readonly s: SeedState) {}
  [BIND_SCOPE](scope: ChildScope): void {
    this.#scope = scope;
  }
  isReady(): number {
    return 0;
  }
  async call(id: FateId): Promise<Repo<unknown>> {
    const { store, wake } = scopeOf(this.#scope);
    // children inherit the parent's priority unless their spec names one
    const inherited = this.s.children.some((c) => c.priority === undefined)
      ? (await store.read(id)).priority
      : 0;
    const seeded = await store.seedMany(
      this.s.children.map((c) => ({
        step: c.step,
        opName: c.opName,
        priority: c.priority ?? inherited,
        key: childKey(id, c.name),
        internal: { kind: 'child', parent: id, name: c.name },
      })),
    );
    wake();
    const children = this.s.children.map((c, i) => ({ name: c.name, id: seeded[i]?.id as FateId }));
    return new WaitForChildren({ ...this.s, children });
  }
  undo(id: FateId): Promise<void> {
    const ids = this.s.children.map((c) => keyedFateId(childKey(id, c.name)));
    return cancelUnstarted(scopeOf(this.#scope).store, ids);
  }
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
}

class WaitForChildren implements Repo<unknown>, ScopedStep {
  #scope: ChildScope | undefined;
  readonly type = WAIT;
  constructor(readonly s: WaitState) {}
  [BIND_SCOPE](scope: ChildScope): void {
    this.#scope = scope;
  }
  async isReady(): Promise<number> {
    const { store } = scopeOf(this.#scope);
    for (const c of this.s.children) {
      const { status } = await store.read(c.id);
      if (!FINISHED_STATUSES.has(status) && status !== Status.UNKNOWN) return this.s.recheckMs;
    }
    return 0;
  }
  async call(): Promise<Repo<unknown>> {
    const { store, steps } = scopeOf(this.#scope);
    const outcomes: Record<string, ChildOutcome> = {};
    for (const c of this.s.children) {
      const v = await store.read(c.id);
      outcomes[c.name] = {
        id: c.id,
        status: v.status,
        ...(v.info.returnValue !== undefined ? { returnValue: v.info.returnValue } : {}),
        ...(v.info.error ? { error: v.info.error } : {}),
      };
    }
    const failed = Object.entries(outcomes).filter(([, o]) => o.status !== Status.SUCCESSFUL);
    if (failed.length > 0 && !this.s.continueOnFailure) {
      throw new FateError(
        FateErrorCode.CHILD_FAILED,
        `children did not succeed: ${failed.map(([n, o]) => `${n} ${o.status}${o.error ? ` (${o.error.message})` : ''}`).join(', ')}`,
      );
    }
    const state = this.s.next.state;
    if (typeof state !== 'object' || state === null || Array.isArray(state)) {
      throw invalidArgument('the step after awaitChildren needs an object state');
    }
    return steps.deserialize({
      type: this.s.next.type,
      state: { ...state, children: outcomes as unknown as JsonValue },
    });
  }
  undo(): Promise<void> {
    return cancelUnstarted(
      scopeOf(this.#scope).store,
      this.s.children.map((c) => c.id),
    );
  }
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
}

/** Cancels the children nothing of which ran yet; the others run to their end. */
async function cancelUnstarted(store: FatesStore, ids: readonly FateId[]): Promise<void> {
  for (const id of ids) {
    await cancel(store, id, { timeoutMs: 10_000 }).catch((err) => {
      if (
        !isFateError(err, FateErrorCode.ILLEGAL_STATUS) &&
        !isFateError(err, FateErrorCode.NOT_FOUND)
      )
        throw err;
    });
  }
}

/** The engine's child step types (registered in every engine's registry). */
export const childStepTypes: StepType<unknown>[] = [
  { type: SEED, fromState: (s) => new SeedChildren(s as unknown as SeedState) },
  { type: WAIT, fromState: (s) => new WaitForChildren(s as unknown as WaitState) },
];

/**
 * Wakes a parked parent once one of its children finished: reserving it (waiting while its
 * engine holds it — it then parks again or finishes) and releasing it with no deferral.
 */
export async function wakeParent(
  store: FatesStore,
  parent: FateId,
  timeoutMs: number,
): Promise<void> {
  const h = await store.reserve(parent, { timeoutMs });
  try {
    await h.unreserve(0);
  } finally {
    if (h.isReserved) await h.unreserve();
  }
}
