import { type Command, stringValue } from '../command.js';
import { runDemo } from './demo.js';
import { demoNumber } from './demo-options.js';

/** `fate demo`: the main job, on a fresh SQLite file unless `--store` names a store. */
export const demoCommand: Command = {
  name: 'demo',
  usage: 'demo [--store URL] [--orders N] [--processes P] [--timeout S]',
  summary: 'the main job: engine processes, a SIGKILL, recovery (1000 orders, 3 processes, 120 s)',
  options: {
    store: { type: 'string' },
    orders: { type: 'string' },
    processes: { type: 'string' },
    timeout: { type: 'string' },
  },
  positionals: [],
  async run(args, context) {
    const store = stringValue(args, 'store');
    await runDemo({
      ...(store !== undefined ? { store } : {}),
      orders: demoNumber('orders', stringValue(args, 'orders')),
      processes: demoNumber('processes', stringValue(args, 'processes')),
      timeoutSeconds: demoNumber('timeout', stringValue(args, 'timeout')),
      adminCommand: context.invokedAs,
    });
    return undefined;
  },
};
