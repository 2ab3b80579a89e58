import type { PackedPackage } from './pack.js';

/** Progress goes to stderr, so stdout stays clean for anything piped. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs one named step and prints it with its duration; a failure propagates. */
export async function step<T>(title: string, action: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await action();
  progress(`  ✓ ${title} (${seconds(Date.now() - started)})`);
  return result;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line per tarball: size, unpacked size and file count, as `npm pack --json` reports. */
export function sizeTable(packed: readonly PackedPackage[]): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  const rows = packed.map((p) => [
    p.manifest.name,
    kb(p.size),
    kb(p.unpackedSize),
    `${p.entryCount}`,
  ]);
  const all = [['package', 'tarball', 'unpacked', 'files'], ...rows];
  const widths = all[0]?.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length))) ?? [];
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  '),
    )
    .join('\n');
}
