/** Base64 without Node's Buffer, so the core stays runtime-neutral. */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  // Chunks keep String.fromCharCode's argument count bounded.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}
