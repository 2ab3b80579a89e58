import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mustRun, PackCheckError, type RunResult } from './exec.js';

/** An empty npm project (an app of a fate user), with the given package.json fields. */
export function createProject(dir: string, fields: Readonly<Record<string, unknown>>): string {
  mkdirSync(dir, { recursive: true });
  const manifest = { name: 'fate-pack-app', private: true, type: 'module', ...fields };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/**
 * `npm install` as a user would, but from npm's cache where it can (`--prefer-offline`), and
 * failing if npm reports install scripts its `allowScripts` does not cover: the backend
 * READMEs say what to allow, and this holds them to it. A native module compiled by its
 * install script (the `zookeeper` binding) compiles on every core (node-gyp's `JOBS=max`).
 */
export async function npmInstall(dir: string, specs: readonly string[]): Promise<RunResult> {
  const result = await mustRun(
    'npm install',
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs],
    { cwd: dir, timeoutMs: 1_200_000, env: { JOBS: 'max' } },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  if (/not yet covered by allowScripts/i.test(output)) {
    throw new PackCheckError(
      `npm install in ${dir} ran install scripts that allowScripts does not cover; the ` +
        `backend READMEs must name them:\n${output.trim()}`,
    );
  }
  return result;
}
