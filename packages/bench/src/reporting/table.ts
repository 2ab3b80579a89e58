import { round } from '../measurements/stats.js';

/** A table as data, rendered as text for the terminal or as markdown for the docs. */
export interface Table {
  readonly title: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export const fmt = (v: number) => (Number.isFinite(v) ? round(v).toLocaleString('en-US') : '—');

const numeric = (cell: string) => /^[\d,.—\s/×-]+$/.test(cell);

export function textTable(t: Table): string {
  const widths = t.headers.map((h, i) =>
    Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric(c) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    t.title,
    line(t.headers),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...t.rows.map(line),
  ].join('\n');
}

/** A markdown table with padded columns, as the formatter (biome) leaves it. */
export function markdownTable(t: Table): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  const right = t.headers.map((_, i) => t.rows.every((r) => numeric(r[i] ?? '')));
  const widths = t.headers.map((h, i) =>
    Math.max(3, esc(h).length, ...t.rows.map((r) => esc(r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((c, i) => (right[i] ? esc(c).padStart(widths[i] ?? 0) : esc(c).padEnd(widths[i] ?? 0)))
      .join(' | ')} |`;
  const rule = widths.map((w, i) => (right[i] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w)));
  return [line(t.headers), `| ${rule.join(' | ')} |`, ...t.rows.map(line)].join('\n');
}
