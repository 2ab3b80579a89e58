import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface LocalServerOptions {
  /** For messages, e.g. `redis-server on port 6400`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The server's temp dir, removed on stop (and if the test process dies). */
  readonly dir: string;
  /** True once the server answers. */
  readonly ready: () => Promise<boolean>;
  readonly startTimeoutMs: number;
  /** After the stop signal (a clean shutdown), how long before SIGKILL. */
  readonly termGraceMs: number;
  /** The signal of a clean shutdown; default SIGTERM (PostgreSQL's fast one is SIGINT). */
  readonly stopSignal?: NodeJS.Signals;
  /** Run as this user and group (a server that refuses to run as root). */
  readonly uid?: number;
  readonly gid?: number;
}

/** A server process the tests own: started, stopped (cleanly), restarted, never leaked. */
export interface LocalServer {
  /** The running process, if any. */
  readonly process: ChildProcess | undefined;
  readonly stopped: boolean;
  /**
   * Starts it (again, after `halt` or `kill`) and resolves once `ready`; throws with its
   * last output otherwise, or when it is running or was stopped.
   */
  launch(): Promise<void>;
  /** The stop signal, then SIGKILL after the grace period; resolves when it exited. */
  halt(): Promise<void>;
  /** SIGKILL at once, as a crash (no clean shutdown); resolves when it exited. */
  kill(): Promise<void>;
  /** Halts for good and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts a local server process and waits until it is ready. */
export async function startLocalServer(o: LocalServerOptions): Promise<LocalServer> {
  let child: ChildProcess | undefined;
  let stopped = false;
  // If the test process dies without stop(), the server must not outlive it.
  const onExit = () => {
    child?.kill('SIGKILL');
    rmSync(o.dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  // Sends `signal` (SIGKILL after the grace period) and resolves once the process exited.
  const end = async (signal: NodeJS.Signals) => {
    const proc = child;
    child = undefined;
    if (!proc || !running(proc)) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), o.termGraceMs);
    await exited;
    clearTimeout(timer);
  };

  const server: LocalServer = {
    get process() {
      return child;
    },
    get stopped() {
      return stopped;
    },
    async launch() {
      if (child && running(child)) throw new Error(`${o.name} is running already`);
      if (stopped) throw new Error(`${o.name} was stopped`);
      const proc = spawn(o.command, [...o.args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(o.uid !== undefined ? { uid: o.uid } : {}),
        ...(o.gid !== undefined ? { gid: o.gid } : {}),
      });
      child = proc;
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4_000);
      };
      proc.stdout?.on('data', keep);
      proc.stderr?.on('data', keep);
      let exited = false;
      proc.once('exit', () => {
        exited = true;
      });
      const deadline = Date.now() + o.startTimeoutMs;
      while (!exited && Date.now() < deadline) {
        if (await o.ready().catch(() => false)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      proc.kill('SIGKILL');
      child = undefined;
      throw new Error(
        `${o.name} did not start (${exited ? 'it exited' : 'no answer'}):\n${output}`,
      );
    },
    halt: () => end(o.stopSignal ?? 'SIGTERM'),
    kill: () => end('SIGKILL'),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.halt();
      process.off('exit', onExit);
      rmSync(o.dir, { recursive: true, force: true });
    },
  };
  try {
    await server.launch();
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

function running(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}
