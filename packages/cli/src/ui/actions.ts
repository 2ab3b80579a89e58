import type { FateId, FatesStore } from '@fate/core';
import type { AdminCommand } from '../admin/admin-command.js';
import { cancelCommand } from '../admin/cancel.js';
import { deleteCommand } from '../admin/delete.js';
import { failCommand } from '../admin/fail.js';

/** One action of the console: exactly an admin command of the CLI, with its options. */
export interface UiAction {
  readonly name: string;
  readonly label: string;
  /** What the CLI says it does. */
  readonly explain: string;
  readonly command: AdminCommand;
  readonly values: Readonly<Record<string, boolean>>;
}

export const ACTIONS: readonly UiAction[] = [
  {
    name: 'cancel',
    label: 'Cancel',
    explain: cancelCommand.summary,
    command: cancelCommand,
    values: {},
  },
  { name: 'fail', label: 'Fail', explain: failCommand.summary, command: failCommand, values: {} },
  {
    name: 'delete',
    label: 'Delete',
    explain: 'delete when NEW/SUBMITTED/SUCCESSFUL/FAILED',
    command: deleteCommand,
    values: {},
  },
  {
    name: 'force-delete',
    label: 'Force delete',
    explain: 'delete in any status, even a record that cannot be decoded (fate delete --force)',
    command: deleteCommand,
    values: { force: true },
  },
];

export const actionNamed = (name: string): UiAction | undefined =>
  ACTIONS.find((a) => a.name === name);

/**
 * Runs `action` on `id` through the CLI command's own code (its rules, waits and errors),
 * on the console's open store; returns what the CLI would print.
 */
export async function runAction(store: FatesStore, action: UiAction, id: FateId): Promise<string> {
  const { spec } = action.command;
  const args = { values: action.values, positionals: [id] };
  if (!spec.id) throw new TypeError(`${spec.name} takes no transaction id`);
  return spec.run(store, args, id);
}
