import { fileURLToPath } from 'node:url';

/**
 * The components Tributary ships, laid out as an npm package of components (packages/engine/curated):
 * two folders up from this module both in src/ and in dist/.
 */
export const CURATED_PACKAGE_DIR = fileURLToPath(new URL('../../curated', import.meta.url));
