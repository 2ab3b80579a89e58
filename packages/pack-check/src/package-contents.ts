import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackedPackage } from './pack.js';
import type { Manifest } from './workspace.js';

/** What the tarball checks look at: the manifest, the packed paths and their text. */
export interface PackageContents {
  /** The package's folder relative to the workspace root, e.g. `packages/core`. */
  readonly dir: string;
  readonly manifest: Manifest;
  readonly files: ReadonlySet<string>;
  /** The text of a packed file (npm pack took it from the package folder). */
  read(path: string): string;
}

export function contentsOf(root: string, p: PackedPackage): PackageContents {
  return {
    dir: p.dir,
    manifest: p.manifest,
    files: p.files,
    read: (path) => readFileSync(join(root, p.dir, path), 'utf8'),
  };
}

/** `./dist/x.js` → `dist/x.js`: the form `npm pack --json` lists. */
export function packagePath(target: string): string {
  return target.replace(/^\.\//, '');
}
