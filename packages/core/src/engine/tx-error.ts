import type { TxError } from '../contract/types.js';

/** Bounds of a recorded error: enough to debug, never enough to overflow a record. */
const MAX_MESSAGE = 2_000;
const MAX_STACK = 8_000;
const MAX_CAUSES = 3;

/**
 * An error as it is stored on a transaction: message, name, code, stack and the `cause`
 * chain, each bounded, so a huge or cyclic error cannot make the record unwritable.
 */
export function toTxError(err: unknown, depth = 0): TxError {
  if (!(err instanceof Error)) return { message: clip(String(err), MAX_MESSAGE) };
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: unknown }).cause;
  return {
    message: clip(err.message, MAX_MESSAGE),
    name: err.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    ...(err.stack ? { stack: clip(err.stack, MAX_STACK) } : {}),
    ...(cause !== undefined && depth < MAX_CAUSES ? { cause: toTxError(cause, depth + 1) } : {}),
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more)`;
}
