import { DEFAULT_STORE_URL, openStore } from '@fate/core';
import { usageError } from '../cli-error.js';
import { type Command, stringValue } from '../command.js';
import { checkUiOptions, startUi } from './ui-server.js';

/**
 * `fate ui`: the console in the browser, until SIGINT or SIGTERM. It is a client of the
 * store like the other admin commands: it registers no engine, owns no partition, cleans
 * nothing, and logs every action, login and refusal on stderr.
 */
export const uiCommand: Command = {
  name: 'ui',
  usage: 'ui [--port N] [--host H] [--token T] [--allow-actions] [--store URL]',
  summary: 'the console in the browser (read-only unless --allow-actions, which needs a token)',
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    'allow-actions': { type: 'boolean' },
    store: { type: 'string' },
  },
  positionals: [],
  async run(args) {
    const rawPort = stringValue(args, 'port') ?? '7070';
    const port = /^\d+$/.test(rawPort) ? Number(rawPort) : Number.NaN;
    if (!(port >= 0 && port <= 65_535))
      throw usageError(
        `--port must be a port number from 0 to 65535, got ${JSON.stringify(rawPort)}`,
      );
    const host = stringValue(args, 'host') ?? '127.0.0.1';
    const token = stringValue(args, 'token') ?? (process.env.FATE_UI_TOKEN || undefined);
    const allowActions = args.values['allow-actions'] === true;
    // refused before the store is opened
    checkUiOptions(host, token, allowActions);
    const storeUrl = stringValue(args, 'store') ?? process.env.FATE_STORE ?? DEFAULT_STORE_URL;
    const store = await openStore(storeUrl, { create: false });
    try {
      const server = await startUi({
        store,
        storeUrl,
        host,
        port,
        allowActions,
        ...(token !== undefined ? { token } : {}),
      });
      console.log(`fate ui: ${server.url}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    } finally {
      await store.close();
    }
    return undefined;
  },
};
