import { askTcp } from './support.js';

// What a single Redis and a cluster's nodes share: the server flags and a raw RESP
// client for probes, so no client library is needed to start or watch a server.

/** The `redis-server` flags every test server has: loopback, its own dir, no RDB snapshots. */
export function redisServerArgs(port: number, dir: string): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
}

/**
 * Sends one command and resolves with its reply: the text of a simple or bulk string,
 * or of an integer; undefined for a nil. Rejects on an error reply or when nothing
 * answers. Arrays are not read (the probes here do not need them).
 */
export async function redisCommand(
  host: string,
  port: number,
  ...args: string[]
): Promise<string | undefined> {
  const request = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  const reply = parseReply(await askTcp(host, port, request, (r) => parseReply(r) !== INCOMPLETE));
  if (reply === INCOMPLETE) throw new Error(`no answer to ${args[0]} from Redis on port ${port}`);
  if (reply instanceof Error) throw reply;
  return reply;
}

const INCOMPLETE = Symbol('incomplete');

/** One RESP reply, or INCOMPLETE while more bytes are due. */
function parseReply(reply: string): string | undefined | Error | typeof INCOMPLETE {
  const eol = reply.indexOf('\r\n');
  if (eol < 0) return INCOMPLETE;
  const head = reply.slice(1, eol);
  switch (reply[0]) {
    case '+':
    case ':':
      return head;
    case '-':
      return new Error(`Redis: ${head}`);
    case '$': {
      const length = Number(head);
      if (length < 0) return undefined;
      const body = Buffer.from(reply.slice(eol + 2));
      return body.length < length + 2 ? INCOMPLETE : body.subarray(0, length).toString();
    }
    default:
      return new Error(`Redis: unexpected reply ${JSON.stringify(reply.slice(0, 40))}`);
  }
}

/** True when Redis at host:port answers PING. */
export async function ping(host: string, port: number): Promise<boolean> {
  return (await redisCommand(host, port, 'PING')) === 'PONG';
}
