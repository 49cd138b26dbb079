/** mimeTypes of skill files by extension (SEP-2640 §Resource Metadata: "the mimeType appropriate to their content"). */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  bash: 'text/x-shellscript',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The mimeType of a file: by its extension, else text/plain for UTF-8 text and application/octet-stream for other bytes. */
export function mimeTypeOf(path: string, isText: boolean): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION[base.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (isText ? 'text/plain' : 'application/octet-stream');
}

/** Whether a file of this mimeType is sent as `text` when its bytes are UTF-8 (else always as `blob`). */
export function sentAsText(mimeType: string): boolean {
  return !/^(image\/(?!svg)|audio\/|video\/|application\/(pdf|zip|octet-stream))/.test(mimeType);
}
