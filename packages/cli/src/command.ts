import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './cli-error.js';

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** What every command gets besides its arguments. */
export interface CliContext {
  /** How this program was started, e.g. `node packages/cli/dist/main.js` or `fate`. */
  readonly invokedAs: string;
}

/** A command line after `fate <command>`, checked against the command's options. */
export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** One `fate` command: its arguments, its usage line and what it does. */
export interface Command {
  readonly name: string;
  /** The usage line after `fate`, e.g. `show ID [--json] [--store URL]`. */
  readonly usage: string;
  /** What it does, in a few words. */
  readonly summary: string;
  readonly options: OptionSpecs;
  /** Required positional arguments, by name (e.g. `ID`). */
  readonly positionals: readonly string[];
  /** Returns what to print on stdout, if anything. */
  run(args: CommandArgs, context: CliContext): Promise<string | undefined>;
}

/** The string value of an option, if given. */
export function stringValue(args: CommandArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Parses `argv` for `command` strictly: an unknown option, a missing value, a value for a
 * flag, or a wrong number of arguments is a usage error that names the problem.
 * `help: true` when `--help` / `-h` was given.
 */
export function parseCommand(
  command: Command,
  argv: readonly string[],
): CommandArgs & { readonly help: boolean } {
  const options: OptionSpecs = { ...command.options, help: { type: 'boolean', short: 'h' } };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: negativeValuesJoined(argv, options),
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw usageError(describeParseError(err, options), err);
  }
  // no option is declared `multiple`, so no value is an array
  const values = parsed.values as CommandArgs['values'];
  const { positionals } = parsed;
  const help = values.help === true;
  if (!help) {
    const extra = positionals[command.positionals.length];
    if (extra !== undefined) throw usageError(`unexpected argument ${JSON.stringify(extra)}`);
    const missing = command.positionals[positionals.length];
    if (missing !== undefined) throw usageError(`missing ${missing}`);
  }
  return { values, positionals, help };
}

/**
 * parseArgs refuses `--orders -5` as ambiguous (is -5 a value or an option?). A negative
 * number after an option that takes a value can only be meant as that value, so it is
 * passed on as `--orders=-5` and the command's own check can say what is wrong with it.
 */
function negativeValuesJoined(argv: readonly string[], options: OptionSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name && options[name]?.type === 'string' && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** parseArgs' messages, said shorter and with the options this command does take. */
function describeParseError(err: unknown, options: OptionSpecs): string {
  const { code, message } = err as { code?: string; message: string };
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'an option';
  const known = Object.keys(options)
    .map((name) => `--${name}`)
    .join(', ');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown option ${option} (options: ${known})`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (message.includes('does not take an argument')) return `${option} takes no value`;
    if (message.includes('ambiguous'))
      return `${option} needs a value (write ${option}=VALUE for a value that starts with "-")`;
    return `${option} needs a value`;
  }
  return message;
}
