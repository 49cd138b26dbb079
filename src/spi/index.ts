/**
 * `janus-mcp/spi`: the interfaces for the authors of what plugs into a server, apart from the
 * authoring API of `janus-mcp/server`:
 *
 * - transports: `coreOf(server)` and the seam it drives (`ServerCore`, `Inbound`, the channels it opens);
 * - clusters: the backplane, the `requestState` secrets and records, and the keyed stores of
 *   what plugs in (`Cluster`, `ClusterStores`, `StoreKey`; the handshake era's session and
 *   event stores are in `janus-mcp/spi/legacy`);
 * - extensions: `ServerExtension` and what it is given (`ExtensionHost`, `CallSite`);
 * - revisions: `registerRevision`, for a revision this library does not know yet.
 *
 * @module janus-mcp/spi
 */
// Transports (src/server/transport-seam.ts).
export { coreOf } from '../server/server.js';
export type { ServerCore, Inbound, ChannelHost, ServerChannel, TransportKind, HeaderParam } from '../server/transport-seam.js';
export type { Connection } from '../server/connect.js';
// Clusters (src/server/cluster.ts).
export { ClusterStores, StoreKey } from '../server/cluster.js';
export type { Cluster } from '../server/cluster.js';
export { LocalBackplane } from '../server/backplane.js';
export type { Backplane, ServerEvent } from '../server/backplane.js';
export { InMemoryRequestStateStore } from '../server/modern/request-state-store.js';
export type { RequestStateStore, InMemoryRequestStateStoreOptions } from '../server/modern/request-state-store.js';
export type { Secret, SecretRing } from '../server/modern/secret-ring.js';
export type { ListKind } from '../server/registry.js';
// Extensions (src/server/extension.ts).
export { verbatim, clientDeclares } from '../server/extension.js';
export type {
  ServerExtension,
  ExtensionMethod,
  ExtensionHost,
  ExtensionServer,
  CallSite,
  ListenGrant,
  ToolCallHook,
  Params,
} from '../server/extension.js';
export type { SiteSession } from '../server/call.js';
export type { Asker } from '../server/ask.js';
export type { ToolEntry } from '../server/features/tools.js';
// Middleware and observability built on the public API.
export { errorCodeFor } from '../server/wire-error.js';
// Revisions (src/protocol/revisions.ts).
export { registerRevision, revision } from '../protocol/revisions.js';
export type { Revision, RevisionChange, RevisionLists, MethodLists, WireType } from '../protocol/revisions.js';
