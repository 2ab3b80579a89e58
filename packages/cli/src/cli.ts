import { DEFAULT_STORE_URL, FateErrorCode } from '@fate/core';
import { cancelCommand } from './admin/cancel.js';
import { deleteCommand } from './admin/delete.js';
import { failCommand } from './admin/fail.js';
import { listCommand } from './admin/list.js';
import { showCommand } from './admin/show.js';
import { summaryCommand } from './admin/summary.js';
import { CliErrorCode, usageError } from './cli-error.js';
import { type CliContext, type Command, parseCommand } from './command.js';
import { demoCommand } from './demo/demo-command.js';
import { uiCommand } from './ui/ui-command.js';

const COMMANDS: readonly Command[] = [
  demoCommand,
  listCommand,
  summaryCommand,
  showCommand,
  cancelCommand,
  failCommand,
  deleteCommand,
  uiCommand,
];

/** Exit statuses: done; refused or failed; the command line is wrong. */
export const ExitStatus = { OK: 0, FAILED: 1, USAGE: 2 } as const;

/** Errors that mean the command line is wrong (a value in it is not valid). */
const USAGE_CODES: ReadonlySet<string> = new Set([
  CliErrorCode.USAGE,
  FateErrorCode.INVALID_ARGUMENT,
  FateErrorCode.BAD_URL,
]);

export function usage(): string {
  return [
    'usage: fate <command> [options]',
    '',
    ...COMMANDS.map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    `The store is --store URL (or --store=URL), else $FATE_STORE, else ${DEFAULT_STORE_URL}.`,
    'Exit status: 0 done, 1 refused or failed, 2 the command line is wrong.',
  ].join('\n');
}

/**
 * Runs one `fate` command line (without `node` and the script) and returns its exit
 * status. Output goes to stdout; errors go to stderr, each with its code.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return ExitStatus.OK;
  }
  const command = COMMANDS.find((c) => c.name === name);
  try {
    if (name === undefined) throw usageError('no command given');
    if (!command) {
      throw usageError(
        name.startsWith('-')
          ? `the command comes first, then its options: fate <command> ${name}`
          : `unknown command ${JSON.stringify(name)} (one of ${COMMANDS.map((c) => c.name).join(', ')}, help)`,
      );
    }
    const args = parseCommand(command, rest);
    if (args.help) {
      console.log(`usage: fate ${command.usage}\n  ${command.summary}`);
      return ExitStatus.OK;
    }
    const output = await command.run(args, context);
    if (output !== undefined) console.log(output);
    return ExitStatus.OK;
  } catch (err) {
    return report(err, command);
  }
}

function report(err: unknown, command: Command | undefined): number {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  const prefix = command ? `fate ${command.name}` : 'fate';
  console.error(`${prefix}: ${message}${typeof code === 'string' ? ` [${code}]` : ''}`);
  if (typeof code === 'string' && USAGE_CODES.has(code)) {
    console.error(command ? `usage: fate ${command.usage}` : usage());
    return ExitStatus.USAGE;
  }
  return ExitStatus.FAILED;
}
