/**
 * The directory resources of the served skills (SEP-2640 §Directory resources): every level
 * from the first path segment down to each file's folder is a directory, written without a
 * trailing slash; `resources/directory/read` lists a directory's direct children, files with
 * their resource metadata and subdirectories as `inode/directory`.
 */
import type { Resource } from '../../protocol/types.js';
import { DIRECTORY_MIME_TYPE } from './wire.js';

/** Children of each directory URI, by child URI. */
export type DirectoryIndex = ReadonlyMap<string, readonly Resource[]>;

/** Builds the index from the served files (URI and resource metadata each), under `scheme` (`skill://`). */
export function indexDirectories(scheme: string, files: Iterable<Resource>): DirectoryIndex {
  const children = new Map<string, Map<string, Resource>>();
  const childrenOf = (dir: string) => {
    let c = children.get(dir);
    if (!c) children.set(dir, (c = new Map()));
    return c;
  };
  for (const file of files) {
    const segments = file.uri.slice(scheme.length).split('/');
    // skill://a/b/c.md: directories skill://a and skill://a/b; the file is a child of the last.
    let dir = scheme + segments[0];
    childrenOf(dir);
    for (let i = 1; i < segments.length - 1; i++) {
      const sub = `${dir}/${segments[i]}`;
      childrenOf(dir).set(sub, { uri: sub, name: decodeSegment(segments[i]!), mimeType: DIRECTORY_MIME_TYPE });
      childrenOf(sub);
      dir = sub;
    }
    childrenOf(dir).set(file.uri, file);
  }
  const index = new Map<string, readonly Resource[]>();
  for (const [dir, map] of children)
    index.set(
      dir,
      [...map.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)),
    );
  return index;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
