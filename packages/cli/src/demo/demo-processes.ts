import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CliError, CliErrorCode } from '../cli-error.js';
import type { ProcessMessage } from './demo-process.js';

const DEMO_PROCESS = fileURLToPath(new URL('./demo-process.js', import.meta.url));

/** How long a demo process may take to open the store and start. */
const READY_TIMEOUT_MS = 30_000;
/** How long a demo process may take to shut down cleanly before it is killed. */
const STOP_TIMEOUT_MS = 15_000;

/** The demo's processes (`process-1` …), each a Fate engine on the same store. */
export class DemoProcesses {
  readonly #url: string;
  readonly #onMessage: (m: ProcessMessage) => void;
  readonly #children = new Map<string, ChildProcess>();

  constructor(url: string, onMessage: (m: ProcessMessage) => void) {
    this.#url = url;
    this.#onMessage = onMessage;
  }

  /** Starts `count` processes; resolves once all are ready, rejects if one exits or is late. */
  async start(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, (_, i) => this.#startOne(`process-${i + 1}`)));
  }

  /** The instance ids of the processes, in start order. */
  get names(): string[] {
    return [...this.#children.keys()];
  }

  /** How many of the processes are still running. */
  get running(): number {
    return [...this.#children.values()].filter((c) => !exited(c)).length;
  }

  kill(instance: string): void {
    this.#children.get(instance)?.kill('SIGKILL');
  }

  /** Stops every process: a clean shutdown, a SIGKILL for any that takes too long. */
  async stop(): Promise<void> {
    await Promise.all([...this.#children.values()].map(stopProcess));
  }

  #startOne(instance: string): Promise<void> {
    const child = fork(DEMO_PROCESS, [this.#url, instance], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#children.set(instance, child);
    child.on('message', (m: ProcessMessage) => this.#onMessage(m));
    return new Promise((resolveReady, reject) => {
      const late = setTimeout(() => {
        reject(failed(`${instance} did not start within ${READY_TIMEOUT_MS / 1_000} s`));
      }, READY_TIMEOUT_MS);
      child.on('message', (m: ProcessMessage) => {
        if (m.kind !== 'ready') return;
        clearTimeout(late);
        resolveReady();
      });
      child.once('exit', (code, signal) => {
        clearTimeout(late);
        reject(failed(`${instance} exited early (${code ?? signal})`));
      });
    });
  }
}

const failed = (message: string) => new CliError(CliErrorCode.DEMO_PROCESSES_FAILED, message);

const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (exited(child)) return done();
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}
