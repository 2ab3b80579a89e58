import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@fate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fate } from './cli-harness.js';

// The command line itself: every mistake is refused with exit status 2 and a message that
// names it, before any store is opened or any process started.

let cwd: string;
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'fate-cli-usage-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const STORE = () => `sqlite:${join(cwd, 'usage.db')}`;

describe('fate usage', () => {
  it('prints the usage and exits 2 without a command; 0 for help', async () => {
    const none = await fate([], { cwd });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no command given');
    expect(none.stderr).toContain('usage: fate <command>');
    for (const help of ['help', '--help', '-h']) {
      const run = await fate([help], { cwd });
      expect(run.code, help).toBe(0);
      expect(run.stdout).toMatch(/show ID \[--json\] \[--store URL\]/);
    }
    const one = await fate(['show', '--help'], { cwd });
    expect([one.code, one.stdout.split('\n')[0]]).toEqual([
      0,
      'usage: fate show ID [--json] [--store URL]',
    ]);
  });

  it.each([
    [
      ['frobnicate'],
      'fate: unknown command "frobnicate" (one of demo, list, summary, show, cancel, fail, delete, ui, help)',
    ],
    [
      ['--store', 'x', 'list'],
      'fate: the command comes first, then its options: fate <command> --store',
    ],
    [
      ['list', '--bogus'],
      'fate list: unknown option --bogus (options: --status, --op, --limit, --after, --json, --store, --help)',
    ],
    [['list', '--store'], 'fate list: --store needs a value'],
    [['list', '--store', '--json'], 'fate list: --store needs a value'],
    [['summary', '--json=yes'], 'fate summary: --json takes no value'],
    [['list', 'extra'], 'fate list: unexpected argument "extra"'],
    [['show'], 'fate show: missing ID'],
    [['show', ID, ID], `fate show: unexpected argument "${ID}"`],
    [['cancel', 'nope'], 'fate cancel: not a transaction id: "nope"'],
    [['delete', `${ID}x`, '--force'], 'fate delete: not a transaction id'],
    [
      ['list', '--status', 'DONE'],
      'fate list: unknown status "DONE" in --status (one of NEW, SUBMITTED, IN_PROGRESS, FAILED_IN_PROGRESS, FAILED, SUCCESSFUL, CORRUPT)',
    ],
    [['summary', '--store', 'ftp://x'], 'fate summary: unknown store scheme "ftp:"'],
  ])('refuses %j with exit 2: %s', async (args, message) => {
    const run = await fate(args, { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it.each([
    ['--orders', '-5', '--orders must be a whole number from 1 to 1000000, got "-5"'],
    ['--orders', 'abc', '--orders must be a whole number from 1 to 1000000, got "abc"'],
    ['--orders', '1.5', '--orders must be a whole number from 1 to 1000000, got "1.5"'],
    ['--orders', '0', '--orders must be a whole number from 1 to 1000000, got "0"'],
    ['--processes', '0', '--processes must be a whole number from 2 to 32, got "0"'],
    ['--processes', '-1', '--processes must be a whole number from 2 to 32, got "-1"'],
    ['--processes', 'abc', '--processes must be a whole number from 2 to 32, got "abc"'],
    ['--processes', '1', '--processes must be a whole number from 2 to 32, got "1"'],
    ['--timeout', '0', '--timeout must be a whole number from 1 to 86400, got "0"'],
  ])('refuses demo %s %s with exit 2 before starting anything', async (option, value, message) => {
    for (const args of [[option, value], [`${option}=${value}`]]) {
      const run = await fate(['demo', ...args, '--store', STORE()], { cwd });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`fate demo: ${message}`);
      expect(run.stderr).toContain('[FATE_CLI_USAGE]');
      expect(run.stdout).toBe('');
    }
    expect(existsSync(join(cwd, 'usage.db'))).toBe(false);
  });

  it('accepts an upper-case id and reports an absent one with exit 1', async () => {
    // admin commands open existing stores only: an engine's open creates it
    await (await openStore(STORE())).close();
    const run = await fate(['show', ID.toUpperCase(), `--store=${STORE()}`], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`fate show: no transaction ${ID} [FATE_NOT_FOUND]\n`);
  });
});
