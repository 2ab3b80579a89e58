import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { mustRun, PackCheckError, run } from './exec.js';
import type { PackedPackage } from './pack.js';
import { createProject, npmInstall } from './project.js';
import { step } from './report.js';

/** One URL per backend package: each must be reported as not installed, with the fix. */
const BACKEND_URLS: Readonly<Record<string, string>> = {
  '@fate/store-sqlite': 'sqlite:./fate.db',
  '@fate/store-redis': 'redis://127.0.0.1:1',
  '@fate/store-zk': 'zk://127.0.0.1:1/fate',
};

/**
 * `npm install @fate/cli @fate/core` alone: the backends are optional peers, so nothing
 * else is installed, the memory store works, and every backend URL fails with
 * FATE_BACKEND_NOT_INSTALLED and the command that fixes it.
 */
export async function checkCliOnly(work: string, packed: readonly PackedPackage[]): Promise<void> {
  const tarball = (name: string) => {
    const p = packed.find((x) => x.manifest.name === name);
    if (!p) throw new PackCheckError(`${name} was not packed`);
    return p.tarball;
  };
  const dir = createProject(join(work, 'cli-only'), {});
  await step('npm install @fate/cli @fate/core, no backend', async () => {
    await npmInstall(dir, [tarball('@fate/cli'), tarball('@fate/core')]);
    const installed = readdirSync(join(dir, 'node_modules', '@fate')).sort();
    if (installed.join() !== 'cli,core') {
      throw new PackCheckError(
        `installing the CLI brought more @fate packages: ${installed.join(', ')}`,
      );
    }
  });
  await step('npx fate summary --store memory: works without a backend', () =>
    mustRun(
      'fate summary on memory:',
      'npx',
      ['--no', '--', 'fate', 'summary', '--store', 'memory:'],
      {
        cwd: dir,
        timeoutMs: 60_000,
      },
    ),
  );
  await step('a missing backend is FATE_BACKEND_NOT_INSTALLED naming its package', async () => {
    for (const [pkg, url] of Object.entries(BACKEND_URLS)) {
      const result = await run('npx', ['--no', '--', 'fate', 'summary', '--store', url], {
        cwd: dir,
        timeoutMs: 60_000,
      });
      const fix = `npm install ${pkg}`;
      if (
        result.code !== 1 ||
        !result.stderr.includes('FATE_BACKEND_NOT_INSTALLED') ||
        !result.stderr.includes(fix)
      ) {
        throw new PackCheckError(
          `fate summary --store ${url} without ${pkg} should exit 1 with FATE_BACKEND_NOT_INSTALLED and "${fix}"; ` +
            `it exited ${result.code}:\n${result.stdout}${result.stderr}`,
        );
      }
    }
  });
}
