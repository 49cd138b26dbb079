/**
 * The one file of the tasks extension that names the handshake era: 2025-11-25's experimental
 * core tasks (legacy/). A build without the era (`npm run build:modern-only`) puts
 * eras.modern-only.ts here instead, and serves the 2026 design alone.
 */
import type { TaskDesign } from './design.js';
import { CORE_TASKS as CORE } from './legacy/core.js';

export const CORE_TASKS: TaskDesign | undefined = CORE;
