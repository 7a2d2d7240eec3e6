import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** One protection a worker gets, and whether this machine can give it. */
export interface IsolationLayer {
  readonly name:
    | 'permission-flags'
    | 'empty-environment'
    | 'memory-cap'
    | 'bubblewrap'
    | 'unprivileged-uid'
    | 'private-tmp'
    | 'egress-policy';
  readonly active: boolean;
  /** Why the layer is missing, and how to get it. */
  readonly note?: string;
}

export interface IsolationReport {
  readonly layers: readonly IsolationLayer[];
  readonly bwrapPath: string | null;
  /** uid/gid workers run as, or null to keep the host's. */
  readonly workerUid: number | null;
  readonly workerGid: number | null;
}

export interface IsolationOptions {
  /** `auto` uses bubblewrap when it works here; `process` never does (tests, debugging). */
  readonly mode?: 'auto' | 'process';
  /** The uid/gid for workers when the host runs as root (default 65534, "nobody"). */
  readonly workerUid?: number;
  readonly workerGid?: number;
  /** The egress policy's mode (docs/isolation.md#network); `policy` needs bubblewrap. */
  readonly egress?: 'policy' | 'open';
}

const NOBODY = 65534;

/**
 * Finds out once which isolation layers this machine supports. bubblewrap is tried for real (a
 * namespace can be refused by the kernel even when the binary exists), so a missing layer is
 * reported instead of failing at the first invocation.
 */
export function detectIsolation(options: IsolationOptions = {}): IsolationReport {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const workerUid = isRoot ? (options.workerUid ?? NOBODY) : null;
  const workerGid = isRoot ? (options.workerGid ?? NOBODY) : null;
  const bwrapPath = options.mode === 'process' ? null : findExecutable('bwrap');
  let bwrapWorks = false;
  let bwrapNote =
    'bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) for pid, mount, ipc and uts namespaces and a private /tmp';
  if (options.mode === 'process') bwrapNote = 'disabled (process isolation mode)';
  if (bwrapPath) {
    const probe = spawnSync(
      bwrapPath,
      [
        '--unshare-user',
        '--unshare-pid',
        '--die-with-parent',
        ...systemBinds(),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        process.execPath,
        '-e',
        '0',
      ],
      {
        env: {},
        timeout: 10_000,
        ...(workerUid !== null ? { uid: workerUid, gid: workerGid ?? NOBODY } : {}),
      },
    );
    bwrapWorks = probe.status === 0;
    if (!bwrapWorks)
      bwrapNote = `bubblewrap is installed but cannot create namespaces here: ${probe.stderr?.toString().trim() || `exit ${probe.status}`}`;
  }
  const layers: IsolationLayer[] = [
    { name: 'empty-environment', active: true },
    { name: 'permission-flags', active: true },
    { name: 'memory-cap', active: true },
    { name: 'bubblewrap', active: bwrapWorks, ...(bwrapWorks ? {} : { note: bwrapNote }) },
    {
      name: 'private-tmp',
      active: bwrapWorks,
      ...(bwrapWorks
        ? {}
        : {
            note: "without bubblewrap, /tmp is the host's: components get a scratch directory as TMPDIR instead, with no size cap",
          }),
    },
    egressLayer(options.egress ?? 'policy', bwrapWorks),
    {
      name: 'unprivileged-uid',
      active: workerUid !== null,
      ...(workerUid !== null ? {} : { note: 'the host does not run as root, so workers keep its uid' }),
    },
  ];
  return { layers, bwrapPath: bwrapWorks ? bwrapPath : null, workerUid, workerGid };
}

function egressLayer(mode: 'policy' | 'open', bwrapWorks: boolean): IsolationLayer {
  switch (mode) {
    case 'open':
      return {
        name: 'egress-policy',
        active: false,
        note: "TRIBUTARY_EGRESS=open: components reach the host's whole network, loopback and cloud metadata included",
      };
    case 'policy':
      return bwrapWorks
        ? { name: 'egress-policy', active: true }
        : {
            name: 'egress-policy',
            active: false,
            note: 'it needs bubblewrap, so components will not start (EGRESS_UNENFORCEABLE); install bubblewrap, or set TRIBUTARY_EGRESS=open',
          };
  }
}

/** Read-only binds of the operating system's runtime directories (merged-/usr aware). */
export function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const file of ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates']) {
    if (existsSync(file)) args.push('--ro-bind', file, file);
  }
  const nodeDir = path.dirname(path.dirname(process.execPath));
  if (!['/usr', '/'].includes(nodeDir)) args.push('--ro-bind', nodeDir, nodeDir);
  return args;
}

function findExecutable(name: string): string | null {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}
