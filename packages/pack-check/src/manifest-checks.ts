import { type PackageContents, packagePath } from './package-contents.js';
import type { ExportTarget } from './workspace.js';

/**
 * Problems with a package's metadata and entry points: what npm shows, what `import` and
 * TypeScript resolve, and whether @fate packages stay single copies in an app.
 */
export function manifestProblems(p: PackageContents, repositoryUrl: string): string[] {
  const m = p.manifest;
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  expect(Boolean(m.description), 'no description');
  expect((m.keywords?.length ?? 0) > 0, 'no keywords');
  expect(m.license === 'Apache-2.0', `license is ${m.license}, not Apache-2.0`);
  expect(
    m.repository?.url === repositoryUrl && m.repository.directory === p.dir,
    `repository should be { url: ${repositoryUrl}, directory: ${p.dir} }`,
  );
  expect(Boolean(m.homepage && m.bugs?.url), 'no homepage or bugs URL');
  expect(
    m.publishConfig?.access === 'public',
    'publishConfig.access is not "public" (a scoped package is published restricted otherwise)',
  );
  expect(Boolean(m.engines?.node), 'no engines.node');
  expect(m.type === 'module', 'not "type": "module" (the dist is ESM)');
  expect(Boolean(m.files?.length), 'no "files" list: npm would publish the whole folder');
  // Core's errors and classes are recognised by identity: a second copy must never be
  // installed. Other internal packages (the SQL layer) are stateless and may be copied.
  for (const name of Object.keys(m.dependencies ?? {})) {
    expect(
      name !== '@fate/core',
      `${name} is a dependency: make it a peerDependency, or an app gets a second copy of it`,
    );
  }
  problems.push(...exportProblems(p));
  for (const [name, target] of Object.entries(m.bin ?? {})) {
    const path = packagePath(target);
    // npm publish rewrites `./dist/x.js` to `dist/x.js` and warns that it "was invalid"
    expect(target === path, `bin ${name}: write ${path}, as npm publishes it, not ${target}`);
    expect(p.files.has(path), `bin ${name}: ${target} is not in the tarball`);
    expect(!p.files.has(path) || p.read(path).startsWith('#!'), `bin ${name}: no #! line`);
  }
  return problems;
}

function exportProblems(p: PackageContents): string[] {
  const m = p.manifest;
  if (!m.exports) return ['no "exports" map'];
  const problems: string[] = [];
  if (m.exports['./package.json'] !== './package.json') {
    problems.push('exports has no "./package.json": "./package.json" (tools read it)');
  }
  const targets: string[] = [m.main, m.types].filter((t): t is string => Boolean(t));
  for (const [subpath, target] of Object.entries(m.exports)) {
    problems.push(...conditionProblems(subpath, target));
    targets.push(...leaves(target));
  }
  for (const target of targets) {
    if (!matchesSomeFile(packagePath(target), p.files)) {
      problems.push(`${target} (an entry point) is not in the tarball`);
    }
  }
  return problems;
}

/** Conditions apply in order: TypeScript wants `types` first, Node wants `default` last. */
function conditionProblems(subpath: string, target: ExportTarget): string[] {
  if (target === null || typeof target === 'string') return [];
  const keys = Object.keys(target);
  const problems: string[] = [];
  if (keys[0] !== 'types') problems.push(`exports["${subpath}"]: "types" must come first`);
  if (keys.at(-1) !== 'default') problems.push(`exports["${subpath}"]: "default" must come last`);
  for (const key of keys)
    problems.push(...conditionProblems(`${subpath}/${key}`, target[key] ?? null));
  return problems;
}

function leaves(target: ExportTarget): string[] {
  if (target === null) return [];
  if (typeof target === 'string') return [target];
  return Object.values(target).flatMap(leaves);
}

/** A path, or a subpath pattern with one `*`, that names at least one packed file. */
function matchesSomeFile(path: string, files: ReadonlySet<string>): boolean {
  const star = path.indexOf('*');
  if (star < 0) return files.has(path);
  const [head, rest] = [path.slice(0, star), path.slice(star + 1)];
  return [...files].some((f) => f.startsWith(head) && f.endsWith(rest));
}
