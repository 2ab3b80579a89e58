import type { Database, RunResult, Statement } from 'better-sqlite3';
import type { Compilable } from 'kysely';

/** Prefix of the stand-in values a query is compiled with; no real argument looks like it. */
const MARKER = '\u0000fate-param:';

type Slot<A> = { readonly name: keyof A } | { readonly value: unknown };

/**
 * A kysely query compiled once and prepared once as a better-sqlite3 `Statement`, so a
 * call costs one bind and one step: kysely's per-query work (building, compiling,
 * preparing: tens of µs) is paid at open, not on every hot call.
 *
 * Arguments are named: the query is built with stand-ins from `p` and each compiled
 * parameter is mapped back to its name, so one name may appear several times.
 */
export class PreparedQuery<A extends object, R> {
  /** The SQL kysely compiled (tests read it for `EXPLAIN QUERY PLAN`). */
  readonly sql: string;
  readonly #statement: Statement<unknown[], R>;
  readonly #slots: readonly Slot<A>[];

  constructor(database: Database, build: (p: A) => Compilable<R>) {
    const standIns = new Proxy({} as A, {
      get: (_target, name) => (typeof name === 'string' ? MARKER + name : undefined),
    });
    const compiled = build(standIns).compile();
    this.sql = compiled.sql;
    this.#slots = compiled.parameters.map(
      (value): Slot<A> =>
        typeof value === 'string' && value.startsWith(MARKER)
          ? { name: value.slice(MARKER.length) as keyof A }
          : { value },
    );
    this.#statement = database.prepare<unknown[], R>(compiled.sql);
  }

  run(args: A): RunResult {
    return this.#statement.run(...this.#bind(args));
  }

  get(args: A): R | undefined {
    return this.#statement.get(...this.#bind(args));
  }

  all(args: A): R[] {
    return this.#statement.all(...this.#bind(args));
  }

  #bind(args: A): unknown[] {
    const out = new Array<unknown>(this.#slots.length);
    for (let i = 0; i < out.length; i++) {
      const slot = this.#slots[i] as Slot<A>;
      out[i] = 'name' in slot ? args[slot.name] : slot.value;
    }
    return out;
  }
}
