import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  openSync,
  statSync,
  writeSync,
} from 'node:fs';
import { type RecordWrite, RUNNABLE_STATUSES } from '@fate/core';

/**
 * The first wake-up is written at once; those asked for within this many ms after it are
 * coalesced into one written when it has passed. So a client seeding 8,000 transactions a
 * second writes the file at most about 1,000 times a second, and every watcher is woken
 * about that often, not 8,000 times.
 */
const WINDOW_MS = 1;

/** The wake-up file beside the database `path`: `<path>-wakeup`, as SQLite names `-wal`. */
export function wakeupPath(path: string): string {
  return `${path}-wakeup`;
}

/**
 * A release that leaves the record runnable now: not deferred, and its status runnable or
 * unchanged (an engine stopping, an admin's `fail`, a holder giving the work back). A
 * finished transaction's release (SUCCESSFUL, FAILED) or a deferred one wakes no one.
 */
export function releasesRunnable(change: RecordWrite): boolean {
  if (!change.release || change.release.deferMs > 0) return false;
  return change.status === undefined || RUNNABLE_STATUSES.has(change.status);
}

/**
 * Writes the wake-up file after a write made work runnable, for the watchers of other
 * processes (`SqliteWakeups`) — at most one write per `WINDOW_MS`, the first at once.
 *
 * Each write opens the file by name (`O_CREAT`), writes one byte in place and closes it:
 * about 4 µs here. Opening by name, rather than keeping a descriptor, means a wake-up file
 * that was deleted is made again instead of written unseen.
 */
export class WakeupNotifier {
  readonly #path: string;
  readonly #mode: number;
  #timer: NodeJS.Timeout | undefined;
  #again = false;
  /** The byte written last: this client's count of wake-up writes, modulo 256. */
  #count = 0;

  /**
   * Creates the wake-up file `path` when absent, with the database file's permissions (see
   * `makeWakeupFile`). A file that cannot be opened for writing throws (EACCES, …).
   */
  constructor(path: string, database: string) {
    this.#path = path;
    this.#mode = makeWakeupFile(path, database);
  }

  /** Work became runnable: wake the watchers (now, or at the end of the current window). */
  notify(): void {
    if (this.#timer) {
      this.#again = true;
      return;
    }
    this.#touch();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#again) {
        this.#again = false;
        this.notify();
      }
    }, WINDOW_MS);
    // A process may exit with a wake-up pending: the seed is stored, and finders poll.
    this.#timer.unref();
  }

  /** Writes the wake-up still pending, if any, and stops (before the store closes). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#again) {
      this.#again = false;
      this.#touch();
    }
  }

  #touch(): void {
    try {
      const fd = this.#openFile();
      try {
        // pwrite at offset 0: the file changes (a watcher's event, a new mtime) but never grows.
        this.#count = (this.#count + 1) & 0xff;
        writeSync(fd, Uint8Array.of(this.#count), 0, 1, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      // A wake-up that cannot be written costs latency, not work: every work finder also
      // polls. The write it follows was committed and must not be reported as failed.
    }
  }

  #openFile(): number {
    return openSync(this.#path, constants.O_WRONLY | constants.O_CREAT, this.#mode);
  }
}

/**
 * Creates the wake-up file `path` when absent, with the permissions (and, as root, the
 * owner) of the database file, as SQLite does for `-wal` and `-shm`: whoever may write the
 * database may write this. Returns the mode used. Throws when it cannot be written.
 */
export function makeWakeupFile(path: string, database: string): number {
  const owner = statSync(database);
  const mode = owner.mode & 0o666;
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT, mode);
  try {
    adopt(fd, owner.uid, owner.gid, mode);
  } finally {
    closeSync(fd);
  }
  return mode;
}

/**
 * Gives a file this process has just created the database's permissions and owner, best
 * effort (SQLite's rule for `-wal` and `-shm`): the umask would otherwise narrow them, and a
 * root process would leave a root-owned file the others cannot write. Only an empty file,
 * one no one has written a wake-up to yet, is changed.
 */
function adopt(fd: number, uid: number, gid: number, mode: number): void {
  const file = fstatSync(fd);
  if (file.size !== 0) return;
  try {
    if ((file.mode & 0o777) !== mode) fchmodSync(fd, mode);
    if (process.getuid?.() === 0 && (file.uid !== uid || file.gid !== gid)) {
      fchownSync(fd, uid, gid);
    }
  } catch {
    // Not ours to change (another user made it): opening it for writing worked, enough.
  }
}
