/**
 * eras.ts of a build without the handshake era (`npm run build:modern-only`): no plug-in, so
 * the core serves 2026-07-28 alone and answers `initialize` with -32022 naming what it speaks.
 */
import type { HandshakeEraFactory } from './era.js';

export const HANDSHAKE_ERA: HandshakeEraFactory | undefined = undefined;
