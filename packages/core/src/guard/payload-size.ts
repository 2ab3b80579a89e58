import { FateError, FateErrorCode } from '../errors.js';

/**
 * Refuses a record whose stack and info text take more than `limit` UTF-8 bytes with
 * `FATE_PAYLOAD_TOO_LARGE`, before anything is sent.
 */
export function checkPayloadSize(id: string, stack: string, info: string, limit: number): void {
  // a UTF-16 code unit is at most 3 UTF-8 bytes: most records need no byte count at all
  if ((stack.length + info.length) * 3 <= limit) return;
  const size = Buffer.byteLength(stack) + Buffer.byteLength(info);
  if (size > limit) {
    throw new FateError(
      FateErrorCode.PAYLOAD_TOO_LARGE,
      `${id} would store ${size} bytes; this backend's limit is ${limit}`,
    );
  }
}
