// A hostile or broken record must never crash the console or flood a page: every text shown
// is clipped, and JSON values are printed by a walk with depth and size bounds instead of
// `JSON.stringify` (which recurses without a bound and prints megabytes).

/** Most characters of one text shown on a page. */
export const MAX_TEXT = 2_000;
/** Deepest nesting of a JSON value printed; deeper levels print as `…`. */
export const MAX_DEPTH = 12;

/** `text` up to `max` characters, then `… (N more characters)`. */
export function clip(text: string, max = MAX_TEXT): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en-US')} more characters)`;
}

/** A JSON value as compact text, bounded in depth and length; never throws. */
export function preview(value: unknown, max = MAX_TEXT): string {
  const out: string[] = [];
  let length = 0;
  const push = (s: string): boolean => {
    if (length > max) return false;
    out.push(s);
    length += s.length;
    return length <= max;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string') return push(JSON.stringify(v.length > max ? v.slice(0, max) : v));
      return push(v === undefined ? 'undefined' : String(v));
    }
    if (depth >= MAX_DEPTH) return push(Array.isArray(v) ? '[…]' : '{…}');
    if (Array.isArray(v)) {
      if (!push('[')) return false;
      for (let i = 0; i < v.length; i++) {
        if ((i > 0 && !push(',')) || !walk(v[i], depth + 1)) return false;
      }
      return push(']');
    }
    if (!push('{')) return false;
    let first = true;
    for (const [k, item] of Object.entries(v)) {
      if ((!first && !push(',')) || !push(`${JSON.stringify(k)}:`) || !walk(item, depth + 1))
        return false;
      first = false;
    }
    return push('}');
  };
  let whole: boolean;
  try {
    whole = walk(value, 0);
  } catch {
    return '(cannot be shown)';
  }
  const text = out.join('');
  return whole ? text : `${text.slice(0, max)}… (truncated)`;
}
