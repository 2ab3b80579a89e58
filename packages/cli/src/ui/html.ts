// Every value reaches a page through `html` below: interpolations are escaped unless they are
// already `Html` (built by `html` itself), so a step state or an error message that holds
// markup or script shows as text.

/** Markup that is safe to send: only `html` and `raw` make it. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

type Part = Html | string | number | boolean | undefined | null | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** A template tag: `html\`<td>${value}</td>\`` escapes `value` (arrays are joined). */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Markup written in this program's own source, never data. */
export const raw = (text: string): Html => new Html(text);
