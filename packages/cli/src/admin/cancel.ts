import { Fate } from '@fate/core';
import { ADMIN_RESERVE_TIMEOUT_MS, adminCommand, readExisting } from './admin-command.js';

/**
 * `fate cancel ID`: through the API's `Fate.cancel`, so the rule is the API's: only NEW
 * and SUBMITTED, and anything else is refused at once, before waiting for a reservation.
 * A Fate that is never started runs nothing; it is only the client.
 */
export const cancelCommand = adminCommand({
  name: 'cancel',
  id: true,
  summary: 'NEW/SUBMITTED → FAILED; none of its steps run (anything else is refused)',
  async run(store, _args, id) {
    // an absent or undecodable record is explained as by the other commands
    await readExisting(store, id);
    const client = new Fate({ store, env: undefined, steps: [] });
    await client.cancel(id, { timeoutMs: ADMIN_RESERVE_TIMEOUT_MS });
    return `cancelled ${id}: it is FAILED and none of its steps will run`;
  },
});
