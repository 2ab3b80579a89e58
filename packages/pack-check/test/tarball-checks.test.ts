// The tarball checks on a made-up package: quiet on a good one, and each kind of mistake
// (a missing file, export or dependency) is reported.
import {
  fileProblems,
  importProblems,
  type Manifest,
  manifestProblems,
  type PackageContents,
  packageNameOf,
} from '@fate/pack-check';
import { describe, expect, it } from 'vitest';

const REPO = 'git+https://example.test/fate.git';
const LICENSE = 'the license text\n';

/** A compiled module: its JS and declaration, their source maps and the source they map to. */
function compiled(name: string, js: string): Record<string, string> {
  const map = JSON.stringify({ version: 3, sources: [`../src/${name}.ts`] });
  return {
    [`dist/${name}.js`]: `${js}\n//# sourceMappingURL=${name}.js.map`,
    [`dist/${name}.js.map`]: map,
    [`dist/${name}.d.ts`]: `export {};\n//# sourceMappingURL=${name}.d.ts.map`,
    [`dist/${name}.d.ts.map`]: map,
    [`src/${name}.ts`]: js,
  };
}

function goodManifest(): Manifest {
  return {
    name: '@fate/x',
    version: '0.1.0',
    description: 'x',
    keywords: ['fate'],
    license: 'Apache-2.0',
    homepage: 'https://example.test',
    bugs: { url: 'https://example.test/issues' },
    repository: { type: 'git', url: REPO, directory: 'packages/x' },
    type: 'module',
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    bin: { x: 'dist/main.js' },
    files: ['dist/**/*.js'],
    engines: { node: '>=20' },
    publishConfig: { access: 'public' },
    dependencies: { kysely: '^0.28.0', zookeeper: '^7.0.0' },
    peerDependencies: { '@fate/core': '^0.1.0' },
  };
}

function goodFiles(): Record<string, string> {
  return {
    'package.json': '{}',
    'README.md': '# x',
    LICENSE,
    ...compiled('index', "import { Fate } from '@fate/core';\nexport * from './util.js';"),
    ...compiled('util', "import { Kysely } from 'kysely';\nimport { join } from 'node:path';"),
    ...compiled('native', "const zk = createRequire(import.meta.url)('zookeeper');"),
    ...compiled('main', "#!/usr/bin/env node\nimport './index.js';"),
  };
}

function contents(manifest: Manifest, files: Record<string, string>): PackageContents {
  return {
    dir: 'packages/x',
    manifest,
    files: new Set(Object.keys(files)),
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`read of a file not packed: ${path}`);
      return text;
    },
  };
}

function problems(manifest: Manifest, files: Record<string, string>): string[] {
  const p = contents(manifest, files);
  return [...manifestProblems(p, REPO), ...fileProblems(p, LICENSE), ...importProblems(p)];
}

function without(files: Record<string, string>, ...paths: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([path]) => !paths.includes(path)));
}

describe('tarball checks', () => {
  it('find nothing wrong with a good package', () => {
    expect(problems(goodManifest(), goodFiles())).toEqual([]);
  });

  it('report a missing LICENSE or README, and a LICENSE that is not the repository one', () => {
    expect(problems(goodManifest(), without(goodFiles(), 'LICENSE', 'README.md'))).toEqual([
      'README.md is not in the tarball',
      'LICENSE is not in the tarball',
    ]);
    expect(problems(goodManifest(), { ...goodFiles(), LICENSE: 'MIT' })).toEqual([
      'LICENSE differs from the repository LICENSE',
    ]);
  });

  it('report files that must not be published', () => {
    const files = { ...goodFiles(), 'dist/.tsbuildinfo': '{}', 'test/a.test.js': '' };
    expect(problems(goodManifest(), files)).toEqual([
      'dist/.tsbuildinfo is TypeScript build state and should not be published',
      'test/a.test.js is a test folder and should not be published',
    ]);
  });

  it('report an entry point or a mapped source that is not packed', () => {
    expect(problems(goodManifest(), without(goodFiles(), 'dist/index.d.ts'))).toEqual([
      './dist/index.d.ts (an entry point) is not in the tarball',
      './dist/index.d.ts (an entry point) is not in the tarball',
    ]);
    expect(problems(goodManifest(), without(goodFiles(), 'src/util.ts'))).toEqual([
      'dist/util.js.map maps to src/util.ts, which is not in the tarball',
      'dist/util.d.ts.map maps to src/util.ts, which is not in the tarball',
    ]);
  });

  it('report export conditions out of order and a missing ./package.json export', () => {
    const m = goodManifest();
    const exports = { '.': { default: './dist/index.js', types: './dist/index.d.ts' } };
    expect(problems({ ...m, exports }, goodFiles())).toEqual([
      'exports has no "./package.json": "./package.json" (tools read it)',
      'exports["."]: "types" must come first',
      'exports["."]: "default" must come last',
    ]);
  });

  it('report an import that is not declared, and a dependency nothing imports', () => {
    const m = goodManifest();
    const dependencies = { zookeeper: '^7.0.0', 'left-pad': '^1.0.0' };
    expect(problems({ ...m, dependencies }, goodFiles())).toEqual([
      'dist/util.js imports kysely, but kysely is not a dependency or peer',
      'dependency left-pad is imported by no packed file',
    ]);
  });

  it('report a relative import of a file that is not packed', () => {
    const files = without(goodFiles(), 'dist/util.js', 'dist/util.js.map');
    expect(problems(goodManifest(), files)).toEqual([
      'dist/index.js imports dist/util.js, which is not packed',
      'dependency kysely is imported by no packed file',
    ]);
  });

  it('report @fate packages as dependencies: an app would get a second copy', () => {
    const m = goodManifest();
    const dependencies = { ...m.dependencies, '@fate/core': '0.1.0' };
    expect(problems({ ...m, dependencies }, goodFiles())).toContain(
      '@fate/core is a dependency: make it a peerDependency, or an app gets a second copy of it',
    );
  });

  it('report a bin that npm publish would rewrite, or that is not packed', () => {
    expect(problems({ ...goodManifest(), bin: { x: './dist/main.js' } }, goodFiles())).toEqual([
      'bin x: write dist/main.js, as npm publishes it, not ./dist/main.js',
    ]);
    expect(problems({ ...goodManifest(), bin: { x: 'dist/cli.js' } }, goodFiles())).toEqual([
      'bin x: dist/cli.js is not in the tarball',
    ]);
  });

  it('report missing publishing metadata', () => {
    const { publishConfig: _p, repository: _r, ...m } = goodManifest();
    expect(problems(m, goodFiles())).toEqual([
      `repository should be { url: ${REPO}, directory: packages/x }`,
      'publishConfig.access is not "public" (a scoped package is published restricted otherwise)',
    ]);
  });

  it('name the package of a specifier', () => {
    expect(packageNameOf('@fate/conformance/harness')).toBe('@fate/conformance');
    expect(packageNameOf('kysely/helpers/sqlite')).toBe('kysely');
  });
});
