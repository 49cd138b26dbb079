/** eras.ts of a build without the handshake era (`npm run build:modern-only`): the 2026 design of tasks alone. */
import type { TaskDesign } from './design.js';

export const CORE_TASKS: TaskDesign | undefined = undefined;
