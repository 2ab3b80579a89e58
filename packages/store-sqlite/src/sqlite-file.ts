import { mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { FateError, FateErrorCode } from '@fate/core';

/**
 * Makes `path` ready for SQLite to open, or says precisely why it cannot be: with
 * `create`, missing parent directories are made; without it, the file must exist. Every
 * refusal is a `FATE_STORE_CONFIG` error naming the path; file-system errors are thrown
 * as they come, for the caller's mapping.
 *
 * Directories are made one level at a time, never with `mkdirSync(…, { recursive: true })`:
 * Node's recursive mkdir loops forever, at full CPU, where a parent exists but refuses
 * children with ENOENT (`/proc/nope/x.db`). Each level is tried once, so this ends.
 */
export function prepareFile(path: string, create: boolean): void {
  const file = stat(path);
  if (file?.isDirectory()) throw configError(path, 'it is a directory, not a database file');
  if (file) return;
  if (!create) {
    throw configError(
      path,
      'no such store: no such file (opened without create: the store must exist)',
    );
  }
  makeDirectories(path, dirname(path));
}

/** Creates `dir` and its missing ancestors, outermost first. */
function makeDirectories(path: string, dir: string): void {
  const missing: string[] = [];
  let at = dir;
  let found = stat(at);
  while (!found && dirname(at) !== at) {
    missing.push(at);
    at = dirname(at);
    found = stat(at);
  }
  if (found && !found.isDirectory()) throw configError(path, `${at} is not a directory`);
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (err) {
      // Made by another process opening the same store at the same moment: fine.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && stat(level)?.isDirectory()) continue;
      throw err;
    }
  }
}

/** The entry at `path` (following links), or undefined when there is none. */
function stat(path: string): Stats | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

function configError(path: string, why: string): FateError {
  return new FateError(FateErrorCode.STORE_CONFIG, `SQLite store ${path}: ${why}`);
}
