import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mustRun } from './exec.js';
import { readManifest } from './workspace.js';

const BINARY = 'build/Release/better_sqlite3.node';

/**
 * Lets the app's better-sqlite3 install script take the binary the workspace's `npm ci`
 * already compiled, instead of compiling SQLite again (about two minutes on two cores; the
 * prebuilt download from GitHub is not reachable everywhere). It uses prebuild-install's
 * own `local-prebuilds` setting, read from a `.prebuild-installrc` above the package, so the
 * install script still runs and still needs the app's `allowScripts` entry. Offered only
 * for the workspace's exact version on glibc Linux (the file name prebuild-install looks
 * for); any other version is compiled as usual.
 */
export async function offerWorkspaceBuild(root: string, app: string): Promise<void> {
  const source = join(root, 'node_modules', 'better-sqlite3');
  if (!existsSync(join(source, BINARY)) || !isGlibcLinux()) return;
  const { version } = readManifest(source);
  const dir = join(app, '..', 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const abi = process.versions.modules;
  const file = `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  await mustRun(
    'packing the workspace better-sqlite3 build',
    'tar',
    ['-czf', join(dir, file), '-C', source, BINARY],
    {
      cwd: root,
      timeoutMs: 60_000,
    },
  );
  writeFileSync(join(app, '.prebuild-installrc'), `local-prebuilds=${dir}\n`);
}

/** How the app's better-sqlite3 got its binary: a compile leaves its object files behind. */
export function betterSqliteBinary(app: string): string {
  const pkg = join(app, 'node_modules', 'better-sqlite3');
  const { version } = readManifest(pkg);
  if (!existsSync(join(pkg, BINARY)))
    return `better-sqlite3 ${version}: no binary (its install script did not run)`;
  if (existsSync(join(pkg, 'build', 'Release', 'obj.target')))
    return `better-sqlite3 ${version}: compiled by its install script`;
  return `better-sqlite3 ${version}: prebuilt binary unpacked by its install script (the workspace's build)`;
}

function isGlibcLinux(): boolean {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })
    ?.header;
  return process.platform === 'linux' && Boolean(header?.glibcVersionRuntime);
}
