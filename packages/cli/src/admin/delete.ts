import { ALLOWED } from '@fate/core';
import { ADMIN_RESERVE_TIMEOUT_MS, adminCommand, changeReserved } from './admin-command.js';

/**
 * `fate delete ID [--force]`. Without `--force` only where the store allows a delete; with
 * it in any status, also a record whose status cannot be decoded (`FatesStore.forceDelete`
 * reserves without decoding).
 */
export const deleteCommand = adminCommand({
  name: 'delete',
  id: true,
  usage: '[--force]',
  summary: 'delete when NEW/SUBMITTED/SUCCESSFUL/FAILED (--force: any status, even corrupt)',
  options: { force: { type: 'boolean' } },
  async run(store, args, id) {
    if (args.values.force) {
      await store.forceDelete(id, { timeoutMs: ADMIN_RESERVE_TIMEOUT_MS });
    } else {
      const hint = '; --force deletes in any status';
      await changeReserved(store, id, 'delete', ALLOWED.delete, (fate) => fate.delete(), hint);
    }
    return `deleted ${id}`;
  },
});
