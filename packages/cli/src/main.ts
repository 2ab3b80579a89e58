#!/usr/bin/env node
import { basename, relative } from 'node:path';
import { runCli } from './cli.js';

/**
 * How this program was started, for commands it prints: `node <path of main.js>` when run
 * by path (relative to the working directory when below it), else the name of the bin.
 */
function invokedAs(): string {
  const script = process.argv[1] ?? 'fate';
  if (basename(script) !== 'main.js') return basename(script);
  const rel = relative(process.cwd(), script);
  return `node ${rel.startsWith('..') ? script : rel}`;
}

process.exitCode = await runCli(process.argv.slice(2), { invokedAs: invokedAs() });
