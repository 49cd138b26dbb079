/** The key of the tasks extension's store in a cluster (`Cluster.stores`), so that any instance reads any task. */
import { StoreKey } from '../../server/cluster.js';
import type { TaskStore } from './store.js';

/**
 * The key of the tasks extension's store in a cluster's stores (`Cluster.stores`): a cluster that
 * has one there lets any instance read, update and cancel any task.
 */
export const TASK_STORE = new StoreKey<TaskStore>('io.modelcontextprotocol/tasks');
