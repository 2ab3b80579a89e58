import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { expect, it } from 'vitest';

// A request the C client cannot write makes it close its socket inside the call, unknown
// to the binding; the binding's poll watcher, re-armed on that descriptor, made libuv abort
// the process (EBADF from epoll_ctl) on its next poll. Seen in zk-session-expiry.test.ts as
// a SIGABRT of the engine process woken after its session expired; here the connection is
// reset by a proxy at the one moment that matters, so it happens every time.
const zookeeper = useService(() => startZooKeeper());

it('survives requests written on a connection reset under it, and goes on on a new session', async () => {
  const upstream = new URL((await zookeeper()).url.replace(/^zk:/, 'http:'));
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as net.AddressInfo;
  try {
    const url = `zk://127.0.0.1:${port}/fate-dead-${randomUUID().slice(0, 8)}?sessionTimeout=4000`;
    const child = fork(new URL('./zk-dead-connection-child.mjs', import.meta.url).pathname, [url], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    child.on('message', () => {
      for (const s of sockets) s.resetAndDestroy();
    });
    const exited = new Promise<[number | null, string | null]>((r) =>
      child.once('exit', (code, signal) => r([code, signal])),
    );
    const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = await exited;
    clearTimeout(timeout);
    expect({ code, signal, out: out.trim() }).toEqual({ code: 0, signal: null, out: 'ok' });
  } finally {
    for (const s of sockets) s.destroy();
    proxy.close();
  }
});
