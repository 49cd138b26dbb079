/** `node --import ./register.js …`: installs ./resolve-zod.js before the program's imports resolve. */
import { register } from 'node:module';

register('./resolve-zod.js', import.meta.url);
