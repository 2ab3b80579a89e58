/**
 * Where the engine writes what an operator should know. The shape is pino's (and
 * bunyan's): `logger.warn({ id, err }, 'message')`, so a pino logger can be passed as is.
 */
export interface FateLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * The default: warnings and errors to stderr, one line each, the rest dropped. An engine
 * must never fail silently (a step that keeps failing to finish, a store that is away),
 * and a line per event keeps it greppable without a logging library.
 */
export const stderrLogger: FateLogger = {
  error: (fields, message) => writeLine('error', fields, message),
  warn: (fields, message) => writeLine('warn', fields, message),
  info: () => undefined,
  debug: () => undefined,
};

function writeLine(level: string, fields: object, message: string): void {
  process.stderr.write(`fate ${level}: ${message}${describeFields(fields)}\n`);
}

function describeFields(fields: object): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text =
      value instanceof Error
        ? `${value.name}: ${value.message}${codeOf(value)}`
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
    parts.push(`${key}=${text.replace(/\s+/g, ' ')}`);
  }
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function codeOf(err: Error): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? ` [${code}]` : '';
}

/**
 * A logger that writes a warning at most once per `intervalMs` per message, adding how
 * many were held back: a store that stays away for a minute is one line every ten
 * seconds, not one per scan.
 */
export function throttled(logger: FateLogger, intervalMs = 10_000): FateLogger {
  const last = new Map<string, { at: number; held: number }>();
  return {
    ...logger,
    error: (fields, message) => logger.error(fields, message),
    info: (fields, message) => logger.info(fields, message),
    debug: (fields, message) => logger.debug(fields, message),
    warn(fields, message) {
      const now = performance.now();
      const seen = last.get(message);
      if (seen && now - seen.at < intervalMs) {
        seen.held++;
        return;
      }
      last.set(message, { at: now, held: 0 });
      if (last.size > 1_000) last.clear();
      logger.warn(seen?.held ? { ...fields, repeated: seen.held } : fields, message);
    },
  };
}
