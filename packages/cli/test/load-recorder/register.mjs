// `node --import ./register.mjs …`: appends the URL of every ES module the process loads to the
// file named by TRIBUTARY_LOAD_RECORD (test/startup-imports.test.ts).
import { register } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

const file = process.env['TRIBUTARY_LOAD_RECORD'];
if (!file) throw new Error('TRIBUTARY_LOAD_RECORD names no file');
register(new URL('./hooks.mjs', import.meta.url), { data: { file } });
