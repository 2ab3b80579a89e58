import { builtinModules } from 'node:module';
import { dirname, posix } from 'node:path';
import ts from 'typescript';
import type { PackageContents } from './package-contents.js';

const BUILTIN = new Set(builtinModules);

/** `createRequire(import.meta.url)('name')`: how ESM loads a CommonJS native binding. */
const CREATE_REQUIRE = /createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers a packed JS or declaration file loads. */
function specifiersOf(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const required = [...text.matchAll(CREATE_REQUIRE)].map((m) => m[1] ?? '');
  return [...importedFiles.map((f) => f.fileName), ...required];
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * Problems with what the packed JS and declarations import: a package that is neither a
 * dependency nor a peer (it works in the workspace, where everything is hoisted, and fails
 * in an app), a relative import of a file that is not packed, and a dependency nothing
 * imports. Imports are read with TypeScript's own pre-processor, which also sees
 * `import('literal')` and `require('literal')`, plus `createRequire(…)('literal')`; a
 * computed `import(name)` is the importer's business to declare.
 */
export function importProblems(p: PackageContents): string[] {
  const m = p.manifest;
  const declared = new Set([
    m.name,
    ...Object.keys(m.dependencies ?? {}),
    ...Object.keys(m.peerDependencies ?? {}),
  ]);
  const used = new Set<string>();
  // a declaration may name the same module in many `import("…")` types: report it once
  const problems = new Set<string>();
  for (const file of p.files) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    for (const specifier of specifiersOf(p.read(file))) {
      if (specifier.startsWith('.')) {
        const target = relativeTarget(file, specifier);
        if (!p.files.has(target)) problems.add(`${file} imports ${target}, which is not packed`);
        continue;
      }
      if (specifier.startsWith('node:') || BUILTIN.has(specifier)) continue;
      const name = packageNameOf(specifier);
      used.add(name);
      if (!declared.has(name)) {
        problems.add(`${file} imports ${specifier}, but ${name} is not a dependency or peer`);
      }
    }
  }
  for (const name of Object.keys(m.dependencies ?? {})) {
    if (!used.has(name)) problems.add(`dependency ${name} is imported by no packed file`);
  }
  return [...problems];
}

/** The packed file a relative import names; in a declaration, `./x.js` is `./x.d.ts`. */
function relativeTarget(file: string, specifier: string): string {
  const target = posix.join(dirname(file), specifier);
  return file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
}
