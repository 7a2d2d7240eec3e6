// Node-RED for the workflow benchmark: installed from npm into a cache folder outside the project
// (never a dependency of it), started headless (no editor, no admin API) on 127.0.0.1 with a
// flows file written here. The flows are the equivalents of the Tributary cases:
// - POST /sync:  http in -> function (picks `seq` and `sentAt`) -> http response;
// - POST /async: http in -> http response at once, and -> function (picks) -> function (counts);
// - GET /count:  http in -> function (the count) -> http response, read at the window's edges.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, request } from './server-lib.mjs';

export const NODE_RED_SPEC = 'node-red@4';
/** Kept between runs, like the compatibility report's cache; `--node-red-dir` chooses another. */
export const DEFAULT_NODE_RED_DIR = path.join(os.tmpdir(), 'tributary-bench-node-red');

/**
 * Installs `node-red@4` into `dir` unless it is there already. Resolves with the installed version
 * and how long the install took (0 when it was cached).
 */
export function installNodeRed(dir = DEFAULT_NODE_RED_DIR) {
  const manifest = path.join(dir, 'node_modules', 'node-red', 'package.json');
  const started = Date.now();
  let installed = false;
  if (!existsSync(manifest)) {
    mkdirSync(dir, { recursive: true });
    // A package.json of its own, so npm installs here and not into an enclosing project.
    writeFileSync(path.join(dir, 'package.json'), '{ "name": "tributary-bench-node-red", "private": true }\n');
    execFileSync('npm', ['install', NODE_RED_SPEC, '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', dir], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    installed = true;
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  return { dir, version, installMs: installed ? Date.now() - started : 0 };
}

const PICK = 'msg.payload = { seq: msg.payload.seq, sentAt: msg.payload.sentAt };\nreturn msg;';

function flows() {
  const tab = 'bench';
  const node = (id, type, fields, wires = []) => ({ id, type, z: tab, x: 100, y: 100, wires, ...fields });
  return [
    { id: tab, type: 'tab', label: 'bench' },
    node('sync-in', 'http in', { url: '/sync', method: 'post', upload: false }, [['sync-pick']]),
    node('sync-pick', 'function', { func: PICK, outputs: 1 }, [['sync-out']]),
    node('sync-out', 'http response', { statusCode: '200', headers: {} }),
    node('async-in', 'http in', { url: '/async', method: 'post', upload: false }, [['async-ack', 'async-pick']]),
    node('async-ack', 'function', { func: "msg.payload = 'OK';\nreturn msg;", outputs: 1 }, [['async-out']]),
    node('async-out', 'http response', { statusCode: '200', headers: {} }),
    node('async-pick', 'function', { func: PICK, outputs: 1 }, [['async-count']]),
    node('async-count', 'function', {
      func: "global.set('completed', (global.get('completed') || 0) + 1);\nreturn null;",
      outputs: 1,
    }),
    node('count-in', 'http in', { url: '/count', method: 'get', upload: false }, [['count-read']]),
    node(
      'count-read',
      'function',
      { func: "msg.payload = { completed: global.get('completed') || 0 };\nreturn msg;" },
      [['count-out']],
    ),
    node('count-out', 'http response', { statusCode: '200', headers: {} }),
  ];
}

/** Starts Node-RED from `installDir` with the flows above; resolves with its URL, pid and stop(). */
export async function startNodeRed(installDir) {
  const userDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-node-red-user-'));
  const port = await freePort();
  const flowFile = path.join(userDir, 'flows.json');
  writeFileSync(flowFile, JSON.stringify(flows(), null, 2));
  const settingsFile = path.join(userDir, 'settings.js');
  writeFileSync(
    settingsFile,
    `module.exports = ${JSON.stringify({
      uiHost: '127.0.0.1',
      uiPort: port,
      httpAdminRoot: false,
      httpNodeRoot: '/',
      flowFile,
      userDir,
      credentialSecret: false,
      logging: { console: { level: 'warn', metrics: false, audit: false } },
      diagnostics: { enabled: false },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false },
    })};\n`,
  );
  const logFile = path.join(userDir, 'node-red.log');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [path.join(installDir, 'node_modules', 'node-red', 'red.js'), '--settings', settingsFile, '--userDir', userDir],
    {
      cwd: userDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: userDir, NODE_ENV: 'production' },
      stdio: ['ignore', logFd, logFd],
    },
  );
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
  const baseUrl = `http://127.0.0.1:${port}`;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(killer);
    }
    rmSync(userDir, { recursive: true, force: true });
  };
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`Node-RED exited (${exited.code ?? exited.signal}): ${log().trim()}`);
    try {
      const answer = await request(baseUrl, 'GET', '/count', { timeoutMs: 2000 });
      if (answer.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) {
      await stop();
      throw new Error(`Node-RED did not answer GET /count within 60 s: ${log().trim()}`);
    }
    await delay(100);
  }
  return {
    pid: child.pid,
    baseUrl,
    startMs: Date.now() - started,
    stop,
    /** Messages the async flow's counting function has seen. */
    async completed() {
      const answer = await request(baseUrl, 'GET', '/count');
      return answer.body.completed;
    },
  };
}
