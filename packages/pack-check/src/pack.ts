import { join } from 'node:path';
import { mustRun } from './exec.js';
import type { WorkspacePackage } from './workspace.js';

/** A package as `npm pack` made it: the tarball, its size and what is in it. */
export interface PackedPackage extends WorkspacePackage {
  readonly tarball: string;
  /** Bytes of the .tgz. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  /** Paths inside the package, e.g. `dist/index.js`. */
  readonly files: ReadonlySet<string>;
}

interface PackJson {
  readonly name: string;
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

/** Packs the packages into `destination` with one `npm pack --json` over their workspaces. */
export async function packAll(
  root: string,
  packages: readonly WorkspacePackage[],
  destination: string,
): Promise<PackedPackage[]> {
  const workspaces = packages.flatMap((p) => ['--workspace', p.dir]);
  const { stdout } = await mustRun(
    'npm pack',
    'npm',
    ['pack', '--json', '--pack-destination', destination, ...workspaces],
    { cwd: root, timeoutMs: 120_000 },
  );
  const packed = JSON.parse(stdout) as PackJson[];
  return packages.map((p) => {
    const json = packed.find((j) => j.name === p.manifest.name);
    if (!json) throw new Error(`npm pack did not report ${p.manifest.name}`);
    return {
      ...p,
      tarball: join(destination, json.filename),
      size: json.size,
      unpackedSize: json.unpackedSize,
      entryCount: json.entryCount,
      files: new Set(json.files.map((f) => f.path)),
    };
  });
}
