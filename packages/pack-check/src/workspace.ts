import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A condition map (`{ types, default }`), a target path, or `null` (blocked). */
export type ExportTarget = string | null | { readonly [condition: string]: ExportTarget };

/** The package.json fields the checks read. */
export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly license?: string;
  readonly homepage?: string;
  readonly bugs?: { readonly url?: string };
  readonly repository?: {
    readonly type?: string;
    readonly url?: string;
    readonly directory?: string;
  };
  readonly type?: string;
  readonly main?: string;
  readonly types?: string;
  readonly exports?: Readonly<Record<string, ExportTarget>>;
  readonly bin?: Readonly<Record<string, string>>;
  readonly files?: readonly string[];
  readonly engines?: { readonly node?: string };
  readonly publishConfig?: { readonly access?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly allowScripts?: Readonly<Record<string, boolean>>;
}

/** A package of the workspace: its folder (relative to the root, e.g. `packages/core`). */
export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Every non-private package under `packages/`, in name order. */
export function publishablePackages(root: string): WorkspacePackage[] {
  return readdirSync(join(root, 'packages'))
    .map((name) => join('packages', name))
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: readManifest(join(root, dir)) }))
    .filter((p) => p.manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}
