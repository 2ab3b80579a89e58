import { FateError, FateErrorCode } from '@fate/core';
import type { ResolvedRedisConfig } from './redis-config.js';

/** `redis://host:port/db` (or `redis+cluster://h:p,…`) of a config, for messages (never the credentials). */
export function describeTarget(config: ResolvedRedisConfig): string {
  if (config.nodes)
    return `redis+cluster://${config.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  return `${config.tls ? 'rediss' : 'redis'}://${config.host}:${config.port}/${config.db}`;
}

/**
 * ioredis attaches the command to a server's error reply, so an AUTH or HELLO refused at
 * connect would carry the password into any log that prints the cause: blanked here.
 */
function withoutSecrets(cause: unknown): unknown {
  const command = (cause as { command?: { name?: unknown; args?: unknown } } | null)?.command;
  if (command && /^(auth|hello)$/i.test(String(command.name))) command.args = ['***'];
  return cause;
}

/** An ACL refusal, on its own (NOPERM) or from inside a script (Redis 7's wording). */
const NOPERM = /\bNOPERM\b|user executing the script can't run this command/;

/**
 * Any failure of a Redis call as the store's one operational error, with the cause kept;
 * an ACL refusal (NOPERM) is `FATE_STORE_CONFIG`.
 */
export function unavailable(config: ResolvedRedisConfig, what: string, cause: unknown): FateError {
  if (cause instanceof FateError) return cause;
  withoutSecrets(cause);
  // An ACL refusal does not pass with time: the user's rules must change. Inside a script
  // Redis words it "ERR The user executing the script can't run this command…": taken for
  // an outage, it was retried, and the retry found what the failed script had half written.
  if (NOPERM.test(messageOf(cause))) {
    return new FateError(
      FateErrorCode.STORE_CONFIG,
      `Redis at ${describeTarget(config)}: ${what} failed: ${messageOf(cause)} (the user's ACL ` +
        "does not allow what the store needs: see the README's Security section)",
      { cause },
    );
  }
  return new FateError(
    FateErrorCode.STORE_UNAVAILABLE,
    `Redis at ${describeTarget(config)}: ${what} failed: ${messageOf(cause)}`,
    { cause },
  );
}

/**
 * Why a connection could not be opened, from the server's or the network's own error.
 * What only a configuration change fixes (a database the server does not have, a wrong or
 * missing password, a user without permission) is `FATE_STORE_CONFIG`; the rest
 * (refused, timed out, unreachable) is `FATE_STORE_UNAVAILABLE`, which may pass.
 */
export function openFailure(config: ResolvedRedisConfig, cause: unknown): FateError {
  if (cause instanceof FateError) return cause;
  withoutSecrets(cause);
  const detail = messageOf(cause);
  const hint = CONFIG_ERRORS.find(([pattern]) => pattern.test(detail))?.[1];
  if (!hint) return unavailable(config, 'connecting', cause);
  return new FateError(
    FateErrorCode.STORE_CONFIG,
    `Redis at ${describeTarget(config)}: connecting failed: ${detail} (${hint(config)})`,
    { cause },
  );
}

const CONFIG_ERRORS: ReadonlyArray<readonly [RegExp, (config: ResolvedRedisConfig) => string]> = [
  [
    /DB index is out of range/,
    (c) => `database ${c.db} does not exist on this server: see its "databases" setting`,
  ],
  [/^NOAUTH/, () => 'the server needs a password: redis://[user]:password@host'],
  [/^WRONGPASS/, () => 'check the user name and password in the URL'],
  [NOPERM, () => "the user's ACL does not allow what the store needs"],
  [/cluster support disabled/, () => 'this Redis is no Cluster: use a redis:// URL'],
  [
    /certificate|self[- ]signed|Hostname\/IP does not match|CERT_|unable to verify/i,
    (c) =>
      `the server's TLS certificate is not trusted: check ${c.ca === undefined ? 'the system CAs or give ?ca=/path/ca.pem' : `the CA file ${c.ca}`} and that the certificate names the host`,
  ],
];

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
