import { FINISHED_STATUSES, STORED_STATUSES, Status } from '@fate/core';
import { adminCommand, changeReserved } from './admin-command.js';
import { count } from './format.js';
import { waitMs } from './holders.js';

/** Every status but the finished ones: what has not ended can still be failed. */
const FAILABLE: ReadonlySet<Status> = new Set(
  STORED_STATUSES.filter((s) => !FINISHED_STATUSES.has(s)),
);

/** `fate fail ID`: → FAILED_IN_PROGRESS, so an engine undoes the steps that ran. */
export const failCommand = adminCommand({
  name: 'fail',
  id: true,
  usage: '[--wait S]',
  summary: '→ FAILED_IN_PROGRESS: an engine undoes its steps (not once finished)',
  options: { wait: { type: 'string' } },
  async run(store, args, id) {
    let steps = 0;
    await changeReserved(
      store,
      id,
      'fail',
      FAILABLE,
      async (fate) => {
        steps = (await fate.getStack()).length;
        await fate.commit([
          {
            op: 'setInfo',
            key: 'error',
            value: { message: 'failed by admin', name: 'AdminFailure' },
          },
          { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
          { op: 'unreserve' },
        ]);
      },
      undefined,
      waitMs(args),
    );
    return `${id} is FAILED_IN_PROGRESS: an engine will undo its ${count(steps, 'step')}`;
  },
});
