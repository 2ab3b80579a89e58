import { ALLOWED } from '@fate/core';
import { adminCommand, changeReserved } from './admin-command.js';
import { adminForceDelete, waitMs } from './holders.js';

/**
 * `fate delete ID [--force]`. Without `--force` only where the store allows a delete; with
 * it in any status, also a record whose status cannot be decoded (`FatesStore.forceDelete`
 * reserves without decoding).
 */
export const deleteCommand = adminCommand({
  name: 'delete',
  id: true,
  usage: '[--force] [--wait S]',
  summary: 'delete when NEW/SUBMITTED/SUCCESSFUL/FAILED (--force: any status, even corrupt)',
  options: { force: { type: 'boolean' }, wait: { type: 'string' } },
  async run(store, args, id) {
    if (args.values.force) {
      await adminForceDelete(store, id, waitMs(args));
    } else {
      const hint = '; --force deletes in any status';
      await changeReserved(
        store,
        id,
        'delete',
        ALLOWED.delete,
        (fate) => fate.delete(),
        hint,
        waitMs(args),
      );
    }
    return `deleted ${id}`;
  },
});
