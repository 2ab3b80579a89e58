import { type FSWatcher, type StatsListener, unwatchFile, watch, watchFile } from 'node:fs';
import { makeWakeupFile, WakeupNotifier, wakeupPath } from './sqlite-notify.js';

/**
 * How often the wake-up file is looked at (its `stat`) when it cannot be watched, ms: a
 * safety net far cheaper than a scan, and no faster than needed, since work finders poll
 * the store themselves (backoff up to 1 s).
 */
export const POLL_MS = 250;

/**
 * Wake-ups across the processes of one host: every client watches the wake-up file beside
 * the database (`<db>-wakeup`, written by `WakeupNotifier` after a write made work
 * runnable) while anyone is subscribed. One watch per client, shared by its listeners, and
 * each burst of changes read in one turn of the event loop wakes them once.
 *
 * The watch is `fs.watch`: inotify on Linux, kqueue on macOS and the BSDs (a file is
 * watched through a descriptor, not FSEvents), ReadDirectoryChangesW on the parent
 * directory on Windows. None of them polls. When the watch cannot be set up or fails
 * (inotify's watch or instance limits, a file system without notifications), the file is
 * polled every `POLL_MS` instead (`fs.watchFile`, a `stat` comparing times, size and inode).
 * When the file is deleted or replaced, it is made again, watched again, and every
 * listener woken once, since a wake-up may have been missed meanwhile. Neither the watch
 * nor the poll keeps the process alive.
 */
export class SqliteWakeups {
  readonly #path: string;
  readonly #makeFile: () => void;
  readonly #listeners = new Set<() => void>();
  #watcher: FSWatcher | undefined;
  #polling: StatsListener | undefined;
  #waking = false;
  #closed = false;

  /**
   * `path` is the wake-up file (`wakeupPath(database)`); `makeFile` makes it again when it
   * was deleted (`makeWakeupFile`, with the database's permissions).
   */
  constructor(path: string, makeFile: () => void) {
    this.#path = path;
    this.#makeFile = makeFile;
  }

  /** True when the file is polled because it could not be watched (tests read this). */
  get polling(): boolean {
    return this.#polling !== undefined;
  }

  /**
   * Adds `listener`; the first one starts watching. Never fails for want of a watch: it
   * polls instead. Resolves to the unsubscribe; the last one stops watching.
   */
  async subscribe(listener: () => void): Promise<() => Promise<void>> {
    // A wrapper per subscription, so the same function subscribed twice is two listeners.
    const entry = () => listener();
    this.#listeners.add(entry);
    if (!this.#closed && !this.#watcher && !this.#polling) this.#watch();
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  /** Stops watching for good (the store closes). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    this.#stop();
  }

  #watch(): void {
    try {
      this.#makeFile();
      const watcher = watch(this.#path, { persistent: false }, (event) => {
        if (watcher !== this.#watcher) return;
        if (event === 'rename') this.#rewatch();
        else this.#wake();
      });
      // Errors after the start (Windows: the directory went away) end the watch: poll.
      watcher.on('error', () => {
        if (watcher === this.#watcher) this.#poll();
      });
      this.#watcher = watcher;
    } catch {
      this.#poll();
    }
  }

  /** The file was deleted or replaced: the watch saw the old one. Watch the new one. */
  #rewatch(): void {
    this.#stop();
    if (this.#closed || this.#listeners.size === 0) return;
    this.#watch();
    this.#wake();
  }

  #poll(): void {
    this.#stop();
    if (this.#closed || this.#listeners.size === 0) return;
    const onChange: StatsListener = () => this.#wake();
    watchFile(this.#path, { interval: POLL_MS, persistent: false }, onChange);
    this.#polling = onChange;
  }

  #stop(): void {
    const watcher = this.#watcher;
    this.#watcher = undefined;
    watcher?.close();
    if (this.#polling) unwatchFile(this.#path, this.#polling);
    this.#polling = undefined;
  }

  /** Wakes every listener once for all the changes read in this turn of the event loop. */
  #wake(): void {
    if (this.#waking) return;
    this.#waking = true;
    setImmediate(() => {
      this.#waking = false;
      for (const listener of [...this.#listeners]) {
        try {
          listener();
        } catch {
          // A failing listener must not stop the others, nor the watch.
        }
      }
    });
  }
}

/**
 * The wake-up file of the database at `path` (made if absent; throws when it cannot be
 * written), its notifier for this client's writes and its watch for this client's
 * subscribers.
 */
export function openWakeups(path: string): {
  notifier: WakeupNotifier;
  wakeups: SqliteWakeups;
} {
  const file = wakeupPath(path);
  const notifier = new WakeupNotifier(file, path);
  return { notifier, wakeups: new SqliteWakeups(file, () => makeWakeupFile(file, path)) };
}
