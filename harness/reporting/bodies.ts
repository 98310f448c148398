/**
 * The bytes of the binary request bodies a check sent (a package upload), kept beside their exchange records for as
 * long as the records live: the recorder describes such a body in text ("<N bytes of binary data, sha256 X>"), and a
 * failure's report attaches the bytes themselves, so that its curl line can send the file (--data-binary @FILE).
 */
import type { ExchangeRecord } from '../types.js';

const bodies = new WeakMap<ExchangeRecord, Uint8Array>();

/** Keeps the bytes sent with `record` (a binary body only). */
export function keepBinaryBody(record: ExchangeRecord, body: unknown): void {
  if (body instanceof Uint8Array) bodies.set(record, body);
}

/** The bytes sent with `record`, when it carried a binary body. */
export function binaryBodyFor(record: ExchangeRecord): Uint8Array | undefined {
  return bodies.get(record);
}

/** The name of a failure's body attachment (Allure), which the reports look for. */
export const bodyAttachmentName = (requirement: string) => `${requirement} request body`;
