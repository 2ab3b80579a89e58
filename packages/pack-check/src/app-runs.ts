import { mustRun, PackCheckError } from './exec.js';
import type { PackedPackage } from './pack.js';
import { step } from './report.js';

/** What the quickstart prints when its transaction succeeded (its last comment says so). */
const QUICKSTART_RESULT = "SUCCESSFUL { shipped: 'sku-42' }";

/** Imports every export of every package in the app: a subpath that fails to load fails. */
export async function loadEveryExport(
  app: string,
  packed: readonly PackedPackage[],
): Promise<void> {
  const specifiers = packed.flatMap((p) =>
    Object.keys(p.manifest.exports ?? {})
      // patterns name executables (the conformance children), not modules to import
      .filter((subpath) => !subpath.includes('*') && subpath !== './package.json')
      .map((subpath) => `${p.manifest.name}${subpath.slice(1)}`),
  );
  const script = `
    const failed = [];
    for (const s of process.argv.slice(1)) await import(s).catch((e) => failed.push(s + ': ' + e.message));
    if (failed.length > 0) { console.error(failed.join('\\n')); process.exit(1); }`;
  await step(`every export loads: ${specifiers.join(', ')}`, () =>
    mustRun('importing the exports', 'node', ['--input-type=module', '-e', script, ...specifiers], {
      cwd: app,
      timeoutMs: 60_000,
    }),
  );
}

/** Runs the compiled README quickstart on a store, then `fate summary` on the same store. */
export async function runQuickstart(app: string, store: string): Promise<void> {
  await step(`quickstart on ${store}`, async () => {
    const { stdout } = await mustRun('the quickstart', 'node', ['out/quickstart.js'], {
      cwd: app,
      timeoutMs: 60_000,
      env: { FATE_STORE: store },
    });
    if (!stdout.includes(QUICKSTART_RESULT)) {
      throw new PackCheckError(
        `the quickstart on ${store} printed ${stdout.trim()}, not ${QUICKSTART_RESULT}`,
      );
    }
  });
  await step(`npx fate summary --store ${store}`, async () => {
    const { stdout } = await mustRun(
      'fate summary',
      'npx',
      ['--no', '--', 'fate', 'summary', '--json', '--store', store],
      {
        cwd: app,
        timeoutMs: 60_000,
      },
    );
    const summary = JSON.parse(stdout) as { byOp?: Record<string, Record<string, number>> };
    if (summary.byOp?.order?.SUCCESSFUL !== 1) {
      throw new PackCheckError(
        `fate summary on ${store} does not show the quickstart's order:\n${stdout}`,
      );
    }
  });
}

/** The README's backend-author example: both conformance suites, run by the app's vitest. */
export async function runConformanceExample(app: string): Promise<void> {
  await step('vitest runs the conformance example (@fate/conformance with its vitest peer)', () =>
    mustRun(
      'the conformance example',
      'npx',
      ['--no', '--', 'vitest', 'run', 'out/my-backend.test.js'],
      {
        cwd: app,
        timeoutMs: 300_000,
        env: { CI: '1' },
      },
    ),
  );
}
