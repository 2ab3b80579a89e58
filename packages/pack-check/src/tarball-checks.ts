import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileProblems } from './file-checks.js';
import { importProblems } from './import-checks.js';
import { manifestProblems } from './manifest-checks.js';
import type { PackedPackage } from './pack.js';
import { contentsOf } from './package-contents.js';
import { readManifest } from './workspace.js';

/**
 * Every problem found in the tarballs alone, each prefixed with its package. The
 * repository URL and the LICENSE text are the workspace root's: one place to change them.
 */
export function tarballProblems(root: string, packed: readonly PackedPackage[]): string[] {
  const license = readFileSync(join(root, 'LICENSE'), 'utf8');
  const repositoryUrl = readManifest(root).repository?.url ?? '(no repository in package.json)';
  return packed.flatMap((p) => {
    const contents = contentsOf(root, p);
    return [
      ...manifestProblems(contents, repositoryUrl),
      ...fileProblems(contents, license),
      ...importProblems(contents),
    ].map((problem) => `${p.manifest.name}: ${problem}`);
  });
}
