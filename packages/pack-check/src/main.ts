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
import { packAll } from './pack.js';
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

  const redis = startRedis();
  try {
    const app = await buildApp(root, work, packed);
    await loadEveryExport(app, packed);
    await runQuickstart(app, 'sqlite:./fate.db');
    const { url } = await redis;
    await runQuickstart(
      app,
      `${url}${url.includes('?') ? '&' : '?'}prefix=fate-pack-${process.pid}`,
    );
    await runConformanceExample(app);
  } finally {
    await (await redis.catch(() => undefined))?.stop();
  }
  await checkCliOnly(work, packed);
  rmSync(work, { recursive: true, force: true });
  progress(`test:pack: passed in ${seconds(Date.now() - started)}`);
} catch (err) {
  const message = err instanceof PackCheckError ? err.message : (err as Error).stack;
  progress(`test:pack: FAILED after ${seconds(Date.now() - started)}\n${message}`);
  progress(`(the packages and projects are left in ${work})`);
  process.exitCode = 1;
}
