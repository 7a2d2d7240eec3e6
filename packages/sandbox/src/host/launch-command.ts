import path from 'node:path';
import { EGRESS_SOCKET_FLAG } from '../protocol/egress-flag.js';
import type { IsolationReport } from './isolation.js';
import { systemBinds } from './isolation.js';

export interface LaunchOptions {
  readonly isolation: IsolationReport;
  /** The worker entry script. */
  readonly workerScript: string;
  /** Directories the worker may read: its own code, the bundle, the installed packages. */
  readonly readDirs: readonly string[];
  /** The worker's private scratch directory on the host (used without bubblewrap). */
  readonly scratchDir: string;
  readonly memoryMb: number;
  readonly tmpSizeBytes: number;
  /**
   * The host's egress proxy socket: the worker gets a network namespace of its own (no route
   * out) and this socket as its only way out. Null keeps the host's network (TRIBUTARY_EGRESS=open).
   */
  readonly egressSocket: string | null;
}

/** Where the egress socket appears inside the worker's mount namespace. */
const WORKER_EGRESS_SOCKET = '/run/tributary/egress.sock';

export interface LaunchCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly uid: number | null;
  readonly gid: number | null;
}

/**
 * Builds the command that starts one worker: Node with the permission model (reads limited to
 * `readDirs`, writes to the scratch directory, no child processes, workers or addons), a heap
 * cap and an empty environment; inside bubblewrap namespaces when available; as an unprivileged
 * uid when the host is root.
 */
export function buildLaunchCommand(options: LaunchOptions): LaunchCommand {
  const bwrap = options.isolation.bwrapPath;
  const tmp = bwrap ? '/tmp' : options.scratchDir;
  const nodeArgs = [
    '--experimental-permission',
    ...options.readDirs.map((dir) => `--allow-fs-read=${path.join(dir, '*')}`),
    `--allow-fs-read=${options.workerScript}`,
    `--allow-fs-read=${path.join(tmp, '*')}`,
    `--allow-fs-write=${path.join(tmp, '*')}`,
    `--max-old-space-size=${options.memoryMb}`,
    // V8's default young generation (16 MB semi-spaces) stayed resident after bursts (decision
    // 0007); 2 MB made a busy worker spend about a quarter of its CPU in scavenges. 8 MB cut the
    // workers' CPU per workflow run by 15–37 % in four A/Bs, with the same RSS for 400 loaded
    // components (decision 0014, addendum 9).
    '--max-semi-space-size=8',
    // No GC helper threads: a worker's heap is small, and the host runs many workers on few cores,
    // where each worker's parallel and concurrent GC threads only competed with the others and the
    // server (measured under the workflow benchmark: workers' CPU per run -10 %, runs/s +5-10 %).
    '--single-threaded-gc',
    // V8's memory reducer takes a worker that waits between requests for an idle one and runs full
    // GCs to shrink its heap: under a workflow load, major GC work was 13 % of a worker's CPU, and
    // runs a second rose 6-7 % without it (side by side, 6 rounds), for about 7 MB more resident per
    // busy worker; idle workers are stopped anyway (decision 0014, addendum 16).
    '--no-memory-reducer',
    '--disable-warning=ExperimentalWarning',
    '--enable-source-maps',
    options.workerScript,
    ...(bwrap && options.egressSocket ? [`${EGRESS_SOCKET_FLAG}${WORKER_EGRESS_SOCKET}`] : []),
  ];
  const env = { HOME: tmp, TMPDIR: tmp, NODE_ENV: 'production' };
  const ids = { uid: options.isolation.workerUid, gid: options.isolation.workerGid };
  if (!bwrap) return { command: process.execPath, args: nodeArgs, env, ...ids };
  const binds = [...new Set([...options.readDirs, path.dirname(options.workerScript)])].flatMap((dir) => [
    '--ro-bind',
    dir,
    dir,
  ]);
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.egressSocket ? ['--unshare-net'] : []),
    '--hostname',
    'tributary-worker',
    '--die-with-parent',
    '--new-session',
    ...systemBinds(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // The private /tmp first: read-only binds below it (a cache under /tmp) are mounted on top.
    '--size',
    String(options.tmpSizeBytes),
    '--tmpfs',
    '/tmp',
    ...binds,
    ...(options.egressSocket ? ['--ro-bind', options.egressSocket, WORKER_EGRESS_SOCKET] : []),
    '--chdir',
    '/tmp',
    '--clearenv',
    // Node's IPC channel is fd 3; --clearenv removed the variables that tell the child so.
    '--setenv',
    'NODE_CHANNEL_FD',
    '3',
    '--setenv',
    'NODE_CHANNEL_SERIALIZATION_MODE',
    'json',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    process.execPath,
    ...nodeArgs,
  ];
  return { command: bwrap, args, env: {}, ...ids };
}
