import { basename, dirname, extname, join } from 'node:path';
import type { ScanRow } from './results.js';

// A dependency-free SVG of scan cost against partitions: one row of two panels per backend
// (items read per instance, ms per scan), hash and range as two lines in each panel.

const PANEL_W = 360;
const PANEL_H = 190;
const PAD = { left: 58, right: 46, top: 30, bottom: 36 };
const HEADER = 64;
const STYLE = {
  hash: { color: '#d95f02', dash: '6 4', label: 'hash: every instance reads all runnable ids' },
  range: { color: '#1b6ac9', dash: '', label: 'range: an instance reads only its id range' },
} as const;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** 100000 → "100k", 2.5 → "2.5". */
export function shortNumber(v: number): string {
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(1)}M`;
  if (v >= 1_000) return `${+(v / 1_000).toFixed(1)}k`;
  return v >= 10 ? `${Math.round(v)}` : `${+v.toFixed(2)}`;
}

/** A 1-2-5 step that cuts [0, max] into about four intervals. */
function niceStep(max: number): number {
  if (!(max > 0)) return 1;
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 5, 10].find((m) => m * power >= raw) ?? 10;
  return unit * power;
}

interface Panel {
  readonly title: string;
  readonly value: (row: ScanRow) => number;
}

const PANELS: readonly Panel[] = [
  { title: 'items read per instance per scan', value: (r) => r.itemsReadPerInstance },
  { title: 'ms per scan', value: (r) => r.msPerScan },
];

function panel(rows: readonly ScanRow[], p: Panel, x0: number, y0: number): string {
  const parts: string[] = [];
  const partitions = [...new Set(rows.map((r) => r.partitions))].sort((a, b) => a - b);
  const plotW = PANEL_W - PAD.left - PAD.right;
  const plotH = PANEL_H - PAD.top - PAD.bottom;
  const lo = Math.log2(partitions[0] ?? 1);
  const hi = Math.log2(partitions[partitions.length - 1] ?? 1);
  const xOf = (n: number) =>
    x0 + PAD.left + (hi === lo ? plotW / 2 : ((Math.log2(n) - lo) / (hi - lo)) * plotW);
  const max = Math.max(...rows.map(p.value).filter(Number.isFinite), 0);
  const step = niceStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const yOf = (v: number) => y0 + PAD.top + plotH - (v / top) * plotH;
  parts.push(
    `<text x="${x0 + PAD.left}" y="${y0 + 18}" class="t">${esc(p.title)}</text>`,
    `<rect x="${x0 + PAD.left}" y="${y0 + PAD.top}" width="${plotW}" height="${plotH}" class="frame"/>`,
  );
  for (let v = 0; v <= top + step / 2; v += step) {
    const y = yOf(v).toFixed(1);
    parts.push(
      `<line x1="${x0 + PAD.left}" x2="${x0 + PAD.left + plotW}" y1="${y}" y2="${y}" class="grid"/>`,
      `<text x="${x0 + PAD.left - 6}" y="${y}" class="yl">${shortNumber(v)}</text>`,
    );
  }
  for (const n of partitions) {
    parts.push(
      `<text x="${xOf(n).toFixed(1)}" y="${y0 + PAD.top + plotH + 16}" class="xl">${n}</text>`,
    );
  }
  parts.push(
    `<text x="${x0 + PAD.left + plotW / 2}" y="${y0 + PANEL_H - 4}" class="xl">partitions (instances)</text>`,
  );
  for (const strategy of ['hash', 'range'] as const) {
    const s = STYLE[strategy];
    const pts = rows
      .filter((r) => r.strategy === strategy && Number.isFinite(p.value(r)))
      .sort((a, b) => a.partitions - b.partitions)
      .map((r) => [xOf(r.partitions), yOf(p.value(r)), p.value(r)] as const);
    if (pts.length === 0) continue;
    const d = pts.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2.5"${dash}/>`);
    for (const [x, y, v] of pts) {
      parts.push(
        `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5" fill="${s.color}"><title>${strategy}: ${shortNumber(v)}</title></circle>`,
      );
    }
    const [lx, ly, lv] = pts[pts.length - 1] as readonly [number, number, number];
    // Beside the last point, hash just above range, so the two never cover each other.
    const dy = strategy === 'hash' ? -3 : 11;
    parts.push(
      `<text x="${(lx + 7).toFixed(1)}" y="${(ly + dy).toFixed(1)}" class="vl" fill="${s.color}">${shortNumber(lv)}</text>`,
    );
  }
  return parts.join('\n');
}

/** The whole chart; `title` names the store size. */
export function scanChart(rows: readonly ScanRow[], title: string): string {
  const backends = [...new Set(rows.map((r) => r.backend))];
  const width = PAD.left + PANELS.length * PANEL_W;
  const height = HEADER + backends.length * (PANEL_H + 24);
  const body: string[] = [];
  backends.forEach((backend, i) => {
    const y = HEADER + i * (PANEL_H + 24);
    body.push(
      `<text x="14" y="${y + PANEL_H / 2}" class="b" transform="rotate(-90 14 ${y + PANEL_H / 2})">${esc(backend)}</text>`,
    );
    PANELS.forEach((p, j) => {
      body.push(
        panel(
          rows.filter((r) => r.backend === backend),
          p,
          PAD.left / 2 + j * PANEL_W,
          y,
        ),
      );
    });
  });
  const legend = (['hash', 'range'] as const).map((strategy, i) => {
    const s = STYLE[strategy];
    const x = 40 + i * 350;
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    return `<line x1="${x}" x2="${x + 30}" y1="44" y2="44" stroke="${s.color}" stroke-width="2.5"${dash}/><text x="${x + 38}" y="48" class="lg">${esc(s.label)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif">
<style>
.t { font-size: 13px; font-weight: 600; fill: #222; }
.b { font-size: 15px; font-weight: 700; fill: #222; text-anchor: middle; }
.lg { font-size: 12px; fill: #222; }
.xl { font-size: 11px; fill: #555; text-anchor: middle; }
.yl { font-size: 11px; fill: #555; text-anchor: end; dominant-baseline: middle; }
.vl { font-size: 11px; font-weight: 700; }
.grid { stroke: #e3e3e3; stroke-width: 1; }
.frame { fill: none; stroke: #bbb; stroke-width: 1; }
</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="14" y="22" class="t" style="font-size:15px">${esc(title)} — lower is better</text>
${legend.join('\n')}
${body.join('\n')}
</svg>
`;
}

/** The chart beside the report: docs/benchmarks.md → docs/benchmarks-scan.svg. */
export function chartFileFor(markdownPath: string): string {
  const name = basename(markdownPath, extname(markdownPath));
  return join(dirname(markdownPath), `${name}-scan.svg`);
}
