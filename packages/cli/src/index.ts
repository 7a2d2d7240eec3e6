/**
 * @module @tributary/cli
 * The `tributary` command line: local runs (`run`, `dev`, `validate`, `options`).
 */
export { createProgram, runCli } from './program.js';
export { main } from './main.js';
export { createOutput } from './ui/output.js';
export type { Output } from './ui/output.js';
export type { RunReport } from '@tributary/engine';
export { EXIT_COMPONENT_FAILED, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
