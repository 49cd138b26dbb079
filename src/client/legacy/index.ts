/** The client's handshake era, as its registering file (../eras.ts) reaches it. */
export { handshake } from './handshake.js';
export { LegacyConnection } from './connection.js';
export { StreamableHttpSession } from './http-session.js';
export { LegacyTaskDriver } from './task-driver.js';
export { LegacyTaskReceiver } from './task-receiver.js';
