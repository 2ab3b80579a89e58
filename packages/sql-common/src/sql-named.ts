import type { Compilable } from 'kysely';

/** Prefix of the stand-in values a query is compiled with; no real argument looks like it. */
const MARKER = '\u0000fate-param:';

type Slot<A> = { readonly name: keyof A } | { readonly value: unknown };

/**
 * A kysely query compiled once, with named arguments: the query is built with stand-ins
 * for `p`'s fields and each compiled parameter is mapped back to its name, so a store can
 * prepare the SQL once (a better-sqlite3 statement, a PostgreSQL named statement) and a
 * call costs only `bind`. One name may appear several times.
 *
 * @example
 * const read = new NamedQuery((p: { id: string }) => db.selectFrom('transactions').selectAll().where('id', '=', p.id));
 * statement.get(...read.bind({ id }));
 */
export class NamedQuery<A extends object, R> {
  /** The SQL kysely compiled (tests read it for query plans). */
  readonly sql: string;
  readonly #slots: readonly Slot<A>[];

  constructor(build: (p: A) => Compilable<R>) {
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
  }

  /** The parameter values for `args`, in the compiled order. */
  bind(args: A): unknown[] {
    const out = new Array<unknown>(this.#slots.length);
    for (let i = 0; i < out.length; i++) {
      const slot = this.#slots[i] as Slot<A>;
      out[i] = 'name' in slot ? args[slot.name] : slot.value;
    }
    return out;
  }
}
