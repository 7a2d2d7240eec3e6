import { defineHostileSuite } from './hostile-suite.js';

// The same suite as on a machine without bubblewrap: permission flags, uid and limits only.
defineHostileSuite('process');
