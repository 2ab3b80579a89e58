import { DEFAULT_PRIORITY, MAX_PRIORITY, MIN_PRIORITY } from '@fate/core';

/**
 * The names in a runnable marker bucket. Each says the priority of what it marks (a single
 * marker in its name, a batch marker in its data), so a scan orders its candidates by
 * `(priority descending, id ascending)` from one listing per bucket and its batch markers,
 * and reads only the records of the page it answers:
 *
 * ```
 * <id>              single marker, priority 0 (every version writes these)
 * ~<uuid>           batch marker, every id at priority 0: `<id>` a line (every version)
 * ~p<level>.<id>    single marker, priority <level> (-5..5, not 0)
 * ~p~<uuid>         batch marker with priorities: `<level> <id>` a line
 * ```
 *
 * Priority 0 keeps the names older versions wrote, so a store written before priorities
 * reads as all 0 with nothing moved. The other names start with `~`, which an older version
 * takes for a batch marker whose data names no id it can read (an empty single marker, or
 * lines with a level in front): it skips them, never fails on them, and never rewrites
 * them (it rewrites a batch only to drop ids it read). It does not run that work; it does
 * not keep priorities either (it would write the records back without one).
 */
export type RunnableName =
  | { readonly kind: 'single'; readonly id: string; readonly priority: number }
  | { readonly kind: 'batch'; readonly levels: boolean };

const TILDE = '~';
const LEVELS_BATCH = '~p~';
const SINGLE = /^~p(-?[0-9]+)\.(.*)$/;
const ID = /^[0-9a-f]{2}[0-9a-f-]*$/;

/** The name of the single marker of `id` at `priority`. */
export function singleName(id: string, priority = DEFAULT_PRIORITY): string {
  return priority === DEFAULT_PRIORITY ? id : `${TILDE}p${priority}.${id}`;
}

/** The name of a batch marker `uuid`; `levels`: its lines carry priorities. */
export function batchName(uuid: string, levels: boolean): string {
  return levels ? `${LEVELS_BATCH}${uuid}` : `${TILDE}${uuid}`;
}

/** A priority in `MIN_PRIORITY..MAX_PRIORITY` from its text, or undefined. */
export function levelFrom(text: string | undefined): number | undefined {
  const level = Number(text);
  return text !== undefined &&
    /^-?[0-9]+$/.test(text) &&
    level >= MIN_PRIORITY &&
    level <= MAX_PRIORITY
    ? level
    : undefined;
}

/** What a name in a runnable bucket is; undefined for anything this version does not write. */
export function parseRunnableName(name: string): RunnableName | undefined {
  if (!name.startsWith(TILDE)) {
    return ID.test(name) ? { kind: 'single', id: name, priority: DEFAULT_PRIORITY } : undefined;
  }
  if (name.startsWith(LEVELS_BATCH)) return { kind: 'batch', levels: true };
  const m = SINGLE.exec(name);
  if (!m) return { kind: 'batch', levels: false }; // ~<uuid>
  const priority = levelFrom(m[1]);
  if (priority === undefined || priority === DEFAULT_PRIORITY || !ID.test(m[2] as string)) {
    return undefined;
  }
  return { kind: 'single', id: m[2] as string, priority };
}
