export { PackCheckError } from './exec.js';
export { fileProblems } from './file-checks.js';
export { importProblems, packageNameOf } from './import-checks.js';
export { manifestProblems } from './manifest-checks.js';
export type { PackageContents } from './package-contents.js';
export type { Manifest } from './workspace.js';
