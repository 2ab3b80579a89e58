import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mustRun, PackCheckError } from './exec.js';
import type { PackedPackage } from './pack.js';
import { betterSqliteBinary, offerWorkspaceBuild } from './prebuilds.js';
import { createProject, npmInstall } from './project.js';
import { progress, step } from './report.js';
import { readManifest } from './workspace.js';

/** The README's examples, compiled in the app exactly as they are in docs/examples. */
export const EXAMPLES = ['quickstart.ts', 'my-backend.test.ts'] as const;

/**
 * Makes the app: a project outside the workspace that installs every tarball, plus the
 * TypeScript a user compiles with, and compiles the README's examples against what was
 * installed (`skipLibCheck: false`, so the published declarations are checked too).
 */
export async function buildApp(root: string, work: string, packed: readonly PackedPackage[]) {
  const app = createProject(join(work, 'app'), { allowScripts: userAllowScripts(root) });
  await offerWorkspaceBuild(root, app);
  const tools = ['typescript', '@types/node'].map(
    (name) => `${name}@${installedVersion(root, name)}`,
  );
  await step(`npm install of ${packed.length} tarballs and ${tools.join(', ')}`, () =>
    npmInstall(app, [...packed.map((p) => p.tarball), ...tools]),
  );
  progress(`    ${betterSqliteBinary(app)}`);
  await step('one copy of @fate/core in the app', () => singleCore(app));
  mkdirSync(join(app, 'src'));
  for (const file of EXAMPLES)
    copyFileSync(join(root, 'docs', 'examples', file), join(app, 'src', file));
  writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(APP_TSCONFIG, null, 2)}\n`);
  await step(`tsc compiles ${EXAMPLES.join(', ')} against the installed packages`, () =>
    mustRun('tsc in the app', 'npx', ['--no', '--', 'tsc', '-p', '.'], {
      cwd: app,
      timeoutMs: 120_000,
    }),
  );
  return app;
}

const APP_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    rootDir: 'src',
    outDir: 'out',
  },
  include: ['src'],
};

/**
 * What the app allows to run at install: the workspace's own allowed entries, which are
 * exactly the backends' native modules (the denied ones come from testcontainers, a
 * test-only tool). The backend READMEs give users the same list.
 */
function userAllowScripts(root: string): Record<string, boolean> {
  const allowed = Object.entries(readManifest(root).allowScripts ?? {}).filter(
    ([, allow]) => allow,
  );
  return Object.fromEntries(allowed);
}

function installedVersion(project: string, name: string): string {
  return readManifest(join(project, 'node_modules', name)).version;
}

/** Backends and the CLI take core as a peer, so npm must have installed it exactly once. */
async function singleCore(app: string): Promise<void> {
  const { stdout } = await mustRun('npm query', 'npm', ['query', '#@fate/core'], {
    cwd: app,
    timeoutMs: 60_000,
  });
  const copies = (JSON.parse(stdout) as { path: string }[]).map((n) => n.path);
  if (copies.length !== 1) {
    throw new PackCheckError(
      `the app has ${copies.length} copies of @fate/core: ${copies.join(', ')}`,
    );
  }
}
