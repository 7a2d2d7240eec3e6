import { defineHostileSuite } from './hostile-suite.js';

// The same suite with a worker of its own per component (placement: 'dedicated').
defineHostileSuite('auto', 'dedicated');
