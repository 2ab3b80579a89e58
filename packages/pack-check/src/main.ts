#!/usr/bin/env node
// npm run test:pack — proves that a user outside this workspace can install and use the
// packages: packs every publishable package, checks the tarballs (files, exports, declared
// dependencies, metadata), then installs them from the tarballs into projects under the
// system temp dir and runs the README's examples and the CLI there. Exit 1 on any problem.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRedis } from '@fate/test-services';
import { buildApp } from './app-project.js';
import { loadEveryExport, runConformanceExample, runQuickstart } from './app-runs.js';
import { checkCliOnly } from './cli-only.js';
import { PackCheckError } from './exec.js';
import { type PackedPackage, packAll } from './pack.js';
import { progress, seconds, sizeTable, step } from './report.js';
import { tarballProblems } from './tarball-checks.js';
import { publishablePackages } from './workspace.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'fate-pack-'));
const started = Date.now();
// Ctrl-C: leave through 'exit', where test-services stops the private Redis.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

try {
  const packages = publishablePackages(root);
  progress(`test:pack: ${packages.length} packages, working in ${work}`);
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = await step('npm pack', () => packAll(root, packages, tarballs));
  console.log(sizeTable(packed));
  const problems = tarballProblems(root, packed);
  if (problems.length > 0) {
    throw new PackCheckError(
      `${problems.length} problems in the tarballs:\n  ${problems.join('\n  ')}`,
    );
  }
  progress('  ✓ tarballs: files, exports, source maps, declared dependencies, metadata');

  // Two projects, checked side by side (each mostly waits on npm, the disk or a child
  // process): the app with every package, and the CLI installed alone.
  const failures = (
    await Promise.allSettled([checkApp(root, work, packed), checkCliOnly(work, packed)])
  ).flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new PackCheckError(failures.map(describeFailure).join('\n\n'));
  rmSync(work, { recursive: true, force: true });
  progress(`test:pack: passed in ${seconds(Date.now() - started)}`);
} catch (err) {
  progress(`test:pack: FAILED after ${seconds(Date.now() - started)}\n${describeFailure(err)}`);
  progress(`(the packages and projects are left in ${work})`);
  process.exitCode = 1;
}

/**
 * The app: installs every tarball, then runs the README's conformance example beside the
 * quickstart on SQLite and on Redis (the example takes the longest; the quickstarts are a
 * few short processes).
 */
async function checkApp(root: string, work: string, packed: readonly PackedPackage[]) {
  const redis = startRedis();
  try {
    const app = await buildApp(root, work, packed);
    await loadEveryExport(app, packed);
    const quickstarts = async () => {
      await runQuickstart(app, 'sqlite:./fate.db');
      const { url } = await redis;
      await runQuickstart(
        app,
        `${url}${url.includes('?') ? '&' : '?'}prefix=fate-pack-${process.pid}`,
      );
    };
    const results = await Promise.allSettled([quickstarts(), runConformanceExample(app)]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  } finally {
    await (await redis.catch(() => undefined))?.stop();
  }
}

function describeFailure(err: unknown): string | undefined {
  return err instanceof PackCheckError ? err.message : (err as Error).stack;
}
