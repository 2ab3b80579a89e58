// Text helpers shared by the admin commands, so every command shows times, holders and
// deferrals the same way.

/** A duration for people: `850 ms`, `4.1 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => {
    const whole = Math.trunc(ms / big);
    const rest = Math.trunc((ms - whole * big) / small);
    return rest ? `${whole} ${bigUnit} ${rest} ${smallUnit}` : `${whole} ${bigUnit}`;
  };
  if (abs < 3_600_000) return two(60_000, 'min', 1_000, 's');
  if (abs < 86_400_000) return two(3_600_000, 'h', 60_000, 'min');
  return two(86_400_000, 'd', 3_600_000, 'h');
}

/** `in 4.2 s` while deferred, else `-`. */
export function deferralText(deferUntil: number, now: number): string {
  return deferUntil > now ? `in ${duration(deferUntil - now)}` : '-';
}

/** Columns padded to their widest cell, two spaces apart; the header row is optional. */
export function table(rows: readonly (readonly string[])[], header?: readonly string[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return all.map(line).join('\n');
}

/** `1 transaction`, `2 transactions`. */
/** A transaction's priority as `fate show` and the console print it. */
export const priorityText = (priority: number): string =>
  priority === 0 ? '0 (the default)' : String(priority);

export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Machine-readable output: indented JSON. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2);
