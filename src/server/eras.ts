/**
 * The one file of the server that names the handshake era (2024-11-05 … 2025-11-25): it
 * registers the era's plug-in (legacy/), which the core asks for when it is built. A build
 * without the handshake era (`npm run build:modern-only`) puts eras.modern-only.ts here
 * instead, and leaves every legacy/ folder out.
 */
import type { HandshakeEraFactory } from './era.js';
import { handshakeEra } from './legacy/index.js';

export const HANDSHAKE_ERA: HandshakeEraFactory | undefined = handshakeEra;
