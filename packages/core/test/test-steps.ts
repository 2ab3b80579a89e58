// Steps and helpers the core's unit tests share.
import type { FatesStore, JsonValue, Repo, Reservation, StoredRecord } from '../src/index.js';
import { Fate, StepRegistry } from '../src/index.js';

/** The `code` of what `fn` throws (the error itself as text when it has none); 'ok' when it returns. */
export function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'ok';
}

/** A step that is always ready, does nothing and ends its transaction; it stores `data`. */
export class QuietStep implements Repo {
  constructor(
    readonly type: string,
    readonly data: JsonValue = {},
  ) {}
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return this.data;
  }
}

/** The schedule tests' step: one per due time. */
export class Tick extends QuietStep {
  constructor(readonly due: number) {
    super('tick', { due });
  }
}
export const tickSteps = new StepRegistry([
  { type: 'tick', fromState: (s: JsonValue) => new Tick((s as { due: number }).due) },
]);
export const tickFactory = (due: Date) => new Tick(due.getTime());
/** Epoch ms of an ISO time. */
export const at = (iso: string) => new Date(iso).getTime();
/** Half a second past a whole second: due times are whole seconds. */
export const T0 = at('2026-01-01T00:00:00.500Z');

/** An engine on `store` that knows one step type, `noop` (a `QuietStep`). */
export function noopFate(store: FatesStore): Fate<object> {
  return new Fate({
    store,
    env: {},
    steps: [{ type: 'noop', fromState: () => new QuietStep('noop') }],
  });
}

/** A stored SUBMITTED record with one empty stack and info, held under `reservation` (or none). */
export function submittedRecord(reservation: Reservation | null): StoredRecord {
  return { status: 'SUBMITTED', stack: '[]', info: '{}', reservation, deferUntil: 0 };
}
