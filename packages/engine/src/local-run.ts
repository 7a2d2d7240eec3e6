/**
 * @module @tributary/engine/local-run
 * What a run on this machine (`tributary run`, `dev`, `options`) takes from the engine: the run
 * report and the built-in app catalog, without the storage, queues and delivery behind the
 * package's main entry, which such a process never opens.
 */
export { buildRunReport, emptyReport, toError } from './actions/run-report.js';
export type { RunReport, SendDelivery } from './actions/run-report.js';
export { BUILTIN_APPS } from './apps/builtin-apps.js';
