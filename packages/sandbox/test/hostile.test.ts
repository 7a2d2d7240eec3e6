import { defineHostileSuite } from './hostile-suite.js';

defineHostileSuite('auto');
