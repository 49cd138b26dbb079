/**
 * eras.ts of a build without the handshake era (`npm run build:modern-only`): the client speaks
 * only to servers of the stateless era, and says so to one that speaks only the handshake era.
 */
import type { HandshakeClient } from './handshake-party.js';

export const HANDSHAKE_CLIENT: HandshakeClient | undefined = undefined;
