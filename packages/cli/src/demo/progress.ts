/** Progress on a terminal (a redrawn bar) or as plain lines when output is not a TTY. */
export class Progress {
  readonly #tty = process.stdout.isTTY === true;
  #lastLine = 0;
  /** A bar is on the terminal's current line. */
  #drawn = false;

  update(done: number, total: number, note: string): void {
    const now = Date.now();
    if (this.#tty) {
      const width = 30;
      const filled = Math.round((done / total) * width);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
      process.stdout.write(`\r  ${bar} ${String(done).padStart(5)}/${total}  ${note}\x1b[K`);
      this.#drawn = true;
    } else if (now - this.#lastLine >= 1_000 || done === total) {
      this.#lastLine = now;
      console.log(`  progress ${done}/${total} ${note}`);
    }
  }

  line(text: string): void {
    if (this.#drawn) process.stdout.write('\r\x1b[K');
    this.#drawn = false;
    console.log(text);
  }

  /** Ends the bar's line, if one is drawn; safe to call again. */
  end(): void {
    if (this.#drawn) process.stdout.write('\n');
    this.#drawn = false;
  }
}
