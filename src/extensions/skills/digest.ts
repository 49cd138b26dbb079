/**
 * SHA-256 digests of raw bytes as SEP-2640 writes them (`sha256:<64 lowercase hex>`,
 * §Integrity and verification). Web Crypto only, so neither side needs a Node built-in.
 */

const UTF8 = new TextEncoder();

export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of hash) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

/** The raw bytes of a file given as text (UTF-8, a leading BOM kept) or as bytes. */
export function fileBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? UTF8.encode(content) : content;
}

/** The bytes as text when they are valid UTF-8 (a BOM kept, so the text encodes back to the same bytes), else undefined. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
