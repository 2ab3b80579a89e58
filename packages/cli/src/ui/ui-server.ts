import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FatesStore, redactStoreUrl } from '@fate/core';
import { serve } from '@hono/node-server';
import { CliError, CliErrorCode } from '../cli-error.js';
import { CountSampler } from './count-sampler.js';
import { storeSource, type TxSource } from './tx-source.js';
import { createUiApp } from './ui-app.js';
import { UiAuth } from './ui-auth.js';
import { isLoopback } from './ui-security.js';

export interface UiOptions {
  /** An open store; the console reads and acts through it and never closes it. */
  readonly store: FatesStore;
  /** Its URL, shown on the pages with any password hidden. */
  readonly storeUrl: string;
  /** Default 127.0.0.1; any other than loopback needs a token. */
  readonly host?: string;
  /** Default 7070; 0 takes a free port. */
  readonly port?: number;
  /** With a token every page needs a login with it. */
  readonly token?: string;
  /** Cancel, fail, delete and force-delete (needs a token). Default false: read-only. */
  readonly allowActions?: boolean;
  /** How often the pages' live parts reload and the counts are read at most, ms. Default 2,000. */
  readonly refreshMs?: number;
  /** Default: the store's `listPage` and `counts`. */
  readonly source?: TxSource;
  /** One line per thing the console does. Default: stderr. */
  readonly log?: (line: string) => void;
}

export interface UiServer {
  /** `http://host:port`, where it listens. */
  readonly url: string;
  close(): Promise<void>;
}

/** Most time for a request's headers and whole request, ms; keeps slow clients from holding sockets. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Refuses settings that would expose the console: actions without a token, or a host other
 * than loopback without one. Throws `FATE_UI_UNSAFE`.
 */
export function checkUiOptions(
  host: string,
  token: string | undefined,
  allowActions: boolean,
): void {
  if (token !== undefined && token.length < 16)
    throw new CliError(CliErrorCode.UI_UNSAFE, 'the token must be at least 16 characters');
  if (token !== undefined) return;
  if (allowActions)
    throw new CliError(
      CliErrorCode.UI_UNSAFE,
      '--allow-actions needs a token (--token or $FATE_UI_TOKEN)',
    );
  if (!isLoopback(host))
    throw new CliError(
      CliErrorCode.UI_UNSAFE,
      `refusing to serve on ${host} without a token: anyone who reaches it would read the store (give --token or $FATE_UI_TOKEN, or bind 127.0.0.1)`,
    );
}

/** Starts the console's HTTP server and resolves once it listens. */
export async function startUi(options: UiOptions): Promise<UiServer> {
  const host = options.host ?? '127.0.0.1';
  const allowActions = options.allowActions ?? false;
  checkUiOptions(host, options.token, allowActions);
  const refreshMs = options.refreshMs ?? 2_000;
  const source = options.source ?? storeSource(options.store);
  const log =
    options.log ??
    ((line: string) => console.error(`fate ui: ${new Date().toISOString()} ${line}`));
  const app = createUiApp(
    {
      store: options.store,
      storeLabel: redactStoreUrl(options.storeUrl),
      source,
      sampler: new CountSampler(source, refreshMs),
      auth: new UiAuth(options.token),
      allowActions,
      refreshMs,
      log,
    },
    host,
  );
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 7070 }, () =>
      resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.maxHeadersCount = 100;
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shown}:${address.port}`;
  log(
    `serving ${redactStoreUrl(options.storeUrl)} on ${url} (${allowActions ? 'actions allowed' : 'read-only'}${options.token ? ', login with the token' : ''})`,
  );
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
