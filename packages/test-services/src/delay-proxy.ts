import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/** A TCP proxy on loopback that delays everything it forwards; see `startDelayProxy`. */
export interface DelayProxy {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Forwards every connection made to the returned port to `127.0.0.1:targetPort`, holding
 * each chunk `delayMs` in either direction (in order: timers of one delay fire in the order
 * they were set). A slow network link for one path, such as a follower's link to its leader.
 */
export async function startDelayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => s.destroy());
    s.on('close', () => sockets.delete(s));
  };
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, delayMs);
    });
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
