/**
 * Base64 (RFC 4648 §4) and base64url (§5) without Node's Buffer, so the core stays
 * runtime-neutral: the one codec for resource blobs, `=?base64?…?=` header values and the
 * signed `requestState`.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  // Chunks keep String.fromCharCode's argument count bounded.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** Decodes base64 (atob's forgiving rules: padding optional); throws on characters outside the alphabet. */
export function base64ToBytes(text: string): Uint8Array {
  const bin = atob(text);
  // A plain loop: Uint8Array.from with a mapping function calls it per character (several times slower).
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** Base64url without padding (RFC 4648 §5), for tokens that travel in JSON strings and URLs. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url, padded or not; throws when malformed. */
export function base64UrlToBytes(text: string): Uint8Array {
  return base64ToBytes(text.replace(/-/g, '+').replace(/_/g, '/'));
}
