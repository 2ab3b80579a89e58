import { dirname, posix } from 'node:path';
import type { PackageContents } from './package-contents.js';

/** Paths that never belong in a published package. */
const FORBIDDEN: readonly { readonly pattern: RegExp; readonly why: string }[] = [
  { pattern: /\.tsbuildinfo$/, why: 'TypeScript build state' },
  { pattern: /(^|\/)test\//, why: 'a test folder' },
  { pattern: /\.test\.[cm]?[jt]sx?$/, why: 'a test file' },
  { pattern: /(^|\/)\.env/, why: 'an environment file' },
  { pattern: /\.tgz$/, why: 'a tarball' },
];

/**
 * Compiled output (tsc writes it to `dist/`): each has a source map, and its map names
 * sources that are packed too. Files written by hand and shipped as they are (the console's
 * browser script in `@fate/cli`'s `assets/`) have nothing to map.
 */
const COMPILED = /^dist\/.*\.(js|d\.ts)$/;

/**
 * Problems with what is in the tarball: missing README or LICENSE (or a LICENSE that is
 * not the repository's), files that must not be published, and compiled files whose source
 * maps point at nothing (a stale output of a deleted source shows up here).
 */
export function fileProblems(p: PackageContents, licenseText: string): string[] {
  const problems: string[] = [];
  for (const required of ['package.json', 'README.md', 'LICENSE']) {
    if (!p.files.has(required)) problems.push(`${required} is not in the tarball`);
  }
  if (p.files.has('LICENSE') && p.read('LICENSE') !== licenseText) {
    problems.push('LICENSE differs from the repository LICENSE');
  }
  for (const file of p.files) {
    const forbidden = FORBIDDEN.find((f) => f.pattern.test(file));
    if (forbidden) problems.push(`${file} is ${forbidden.why} and should not be published`);
    else if (COMPILED.test(file)) problems.push(...sourceMapProblems(p, file));
  }
  return problems;
}

function sourceMapProblems(p: PackageContents, file: string): string[] {
  const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(p.read(file))?.[1];
  if (!url) return [`${file} has no source map`];
  const map = posix.join(dirname(file), url);
  if (!p.files.has(map)) return [`${file}: its source map ${map} is not in the tarball`];
  const { sources = [], sourceRoot = '' } = JSON.parse(p.read(map)) as {
    sources?: string[];
    sourceRoot?: string;
  };
  return sources
    .map((source) => posix.join(dirname(map), sourceRoot, source))
    .filter((source) => !p.files.has(source))
    .map((source) => `${map} maps to ${source}, which is not in the tarball`);
}
