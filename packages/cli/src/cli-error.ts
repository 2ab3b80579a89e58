/** Stable codes of the command line's own errors (fate's are `FateErrorCode`). */
export const CliErrorCode = {
  /** The command line itself is wrong: unknown command or option, missing or bad value. */
  USAGE: 'FATE_CLI_USAGE',
  /** A demo process did not start, or every one exited before the orders finished. */
  DEMO_PROCESSES_FAILED: 'FATE_DEMO_PROCESSES_FAILED',
  /** `fate ui` was asked to serve in a way that would expose the store (see `checkUiOptions`). */
  UI_UNSAFE: 'FATE_UI_UNSAFE',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** An error of the command line, with a stable `code`. */
export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
  }
}

/** A mistake in the command line: exit status 2, with the command's usage. */
export const usageError = (message: string, cause?: unknown): CliError =>
  new CliError(CliErrorCode.USAGE, message, cause === undefined ? undefined : { cause });
