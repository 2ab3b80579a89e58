#!/usr/bin/env node
import { DEFAULT_STORE_URL, isFateError, openStore } from '@fate/core';
import { type AdminRequest, runAdmin } from './admin/admin.js';
import { runDemo } from './demo/demo.js';

const USAGE = `usage: fate <command> [options]
  demo [--store URL] [--orders N] [--processes P]   the main job: workers, a kill, recovery
  list [--status S,S] [--op NAME] [--json]          transactions with status, op, top step, holder
  summary [--json]                                  counts by status and by op
  cancel ID                                         NEW/SUBMITTED → FAILED, nothing runs
  fail ID                                           → FAILED_IN_PROGRESS: an engine undoes it
  delete ID [--force]                               delete (force: in any status)
The store is --store URL, else $FATE_STORE, else ${DEFAULT_STORE_URL}.`;

const [command = 'help', ...rest] = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const has = (name: string) => rest.includes(`--${name}`);
const positional = rest.find(
  (a, i) => !a.startsWith('--') && !rest[i - 1]?.match(/^--(store|status|op|orders|processes)$/),
);

try {
  if (command === 'demo') {
    await runDemo({
      ...(flag('store') ? { store: flag('store') } : {}),
      ...(flag('orders') ? { orders: Number(flag('orders')) } : {}),
      ...(flag('processes') ? { processes: Number(flag('processes')) } : {}),
    });
  } else if (['list', 'summary', 'cancel', 'fail', 'delete'].includes(command)) {
    const store = await openStore(flag('store') ?? process.env.FATE_STORE ?? DEFAULT_STORE_URL);
    try {
      const statuses = flag('status')?.split(',');
      const request: AdminRequest = {
        action: command as AdminRequest['action'],
        ...(positional ? { id: positional } : {}),
        ...(statuses ? { statuses } : {}),
        ...(flag('op') ? { opName: flag('op') } : {}),
        force: has('force'),
        json: has('json'),
      };
      console.log(await runAdmin(store, request));
    } finally {
      await store.close();
    }
  } else {
    console.log(USAGE);
    process.exitCode = command === 'help' || command === '--help' ? 0 : 2;
  }
} catch (err) {
  const code =
    isFateError(err) || (err as { code?: string }).code
      ? ` [${(err as { code: string }).code}]`
      : '';
  console.error(`fate ${command}: ${(err as Error).message}${code}`);
  process.exitCode = 1;
}
