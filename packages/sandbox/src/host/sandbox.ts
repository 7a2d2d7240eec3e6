import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { AppError, errorMessage } from '@tributary/contracts';
import { bundleComponent, writeBundle, type PackageImport, type ValidationPurpose } from '@tributary/runtime';
import { planDependencies, type Dependency } from '../packages/dependency-plan.js';
import {
  PackageInstaller,
  type InstalledPackages,
  type InstallProgress,
  type PackageLock,
} from '../packages/package-installer.js';
import { addressChecker, DEFAULT_EGRESS, type EgressPolicy } from '../egress/address-policy.js';
import { EgressProxy } from '../egress/egress-proxy.js';
import { ComponentHandle, GATHERED_REQUESTS, QUICK_CALL_MS, type LoadedComponent } from './component-handle.js';
import { GatheringRegistry } from './gathering-registry.js';
import { assertReachableByOthers, installHarness } from './harness-paths.js';
import { detectIsolation, type IsolationOptions, type IsolationReport } from './isolation.js';
import { buildLaunchCommand } from './launch-command.js';
import { WorkerPool } from './worker-pool.js';
import { rebuildError, WorkerProcess, type ExitReason } from './worker-process.js';
import { relabeler, relabelError, type Relabel } from './source-label.js';

/**
 * Where components run: `shared` (default) loads the components of one group (an owner) into a
 * few warm workers they share; `dedicated` gives each component key and code a worker of its own.
 * See docs/decisions/0007-many-components-per-worker.md.
 */
export type Placement = 'shared' | 'dedicated';

export interface SandboxOptions {
  /** Bundles, installed packages and locks live here (shared by all components). */
  readonly cacheDir: string;
  /** Memory cap of one worker, heap and buffers together (default 256). */
  readonly memoryMb?: number;
  readonly placement?: Placement;
  /** Warm workers kept at most, all groups together (default 16). */
  readonly maxWorkers?: number;
  /** Workers one group uses at once when its requests overlap (default 4; always 1 when dedicated). */
  readonly maxWorkersPerGroup?: number;
  /** Components a shared worker loads before it is replaced by a fresh one (default 2000). */
  readonly maxComponentsPerWorker?: number;
  /** A worker unused this long is stopped (default 5 minutes). */
  readonly idleMs?: number;
  /** Time between a deadline and the SIGKILL of a worker that did not stop by itself (default 2 s). */
  readonly graceMs?: number;
  /**
   * Concurrent calls of a component whose last call ran at most this long (ms, default 5) are
   * gathered, per turn of the event loop, into one request (ComponentHandle.invoke).
   */
  readonly gatherQuickMs?: number;
  /**
   * Gathered requests of one component in flight at once (default: one per core, at least 2); the
   * calls made meanwhile wait and go together in the next request.
   */
  readonly gatherRequests?: number;
  /** Size of a worker's private /tmp when bubblewrap provides one (default 64 MB). */
  readonly tmpSizeMb?: number;
  readonly isolation?: IsolationOptions;
  /**
   * Which addresses components may connect to (default: public addresses only, enforced by a
   * network namespace and the host's egress proxy). See docs/isolation.md#network.
   */
  readonly egress?: EgressPolicy;
  /** Told about each connection the egress policy refused (the operator's log). */
  readonly onEgressRefused?: (target: string, reason: string) => void;
  readonly onInstallProgress?: (progress: InstallProgress) => void;
  /** Told when a worker process starts and why one ended (the engine's metrics). */
  readonly workerEvents?: {
    readonly started: () => void;
    readonly exited: (reason: ExitReason) => void;
  };
  /**
   * The worker entry workers start from (default: the built bundle, dist/worker-bundle/worker.mjs);
   * workers may read its folder.
   */
  readonly workerScript?: string;
}

/** A component bundled with its relative imports, its npm packages installed, ready for a worker. */
export interface PreparedComponent {
  readonly entry: string;
  /** SHA-256 of the entry file's text. */
  readonly codeHash: string;
  readonly bundlePath: string;
  /** Local files the bundle was built from (what `dev` watches). */
  readonly files: readonly string[];
  readonly imports: readonly PackageImport[];
  /** Exact versions of the npm packages, kept until the code changes. */
  readonly lock: PackageLock;
  readonly packageDir: string | null;
  /** Rewrites the entry's path in errors, stacks and logs to the name given to `prepare` (or keeps it). */
  readonly relabel: Relabel;
}

/**
 * Runs components in sandboxed worker processes: `prepare` bundles a component and installs its
 * packages on the host (no component code runs there), `open` starts or reuses its worker. See
 * packages/sandbox/ARCHITECTURE.md for the layers and the kill policy.
 */
export class Sandbox {
  readonly isolation: IsolationReport;
  private readonly pool: WorkerPool<LoadedComponent>;
  /** Per component and group, the least recently used dropped past a limit. */
  private readonly gatherings = new GatheringRegistry();
  private readonly installer: PackageInstaller;
  private readonly harnessDirs: string[];
  private readonly workerScript: string;
  private readonly placement: Placement;
  private readonly depsRoot: string;
  private readonly egress: EgressPolicy;
  private egressProxy: Promise<EgressProxy> | null = null;
  private removeEgressDir: () => void = () => undefined;

  constructor(private readonly options: SandboxOptions) {
    mkdirSync(options.cacheDir, { recursive: true, mode: 0o755 });
    this.egress = options.egress ?? DEFAULT_EGRESS;
    this.isolation = detectIsolation({ ...options.isolation, egress: this.egress.mode });
    // Workers running as another uid must traverse the cache to reach their own bundle and
    // packages; what each may read inside it is limited by its mounts and permission flags.
    if (this.isolation.workerUid !== null) {
      chmodSync(options.cacheDir, statSync(options.cacheDir).mode | 0o755);
      assertReachableByOthers(options.cacheDir);
    }
    this.placement = options.placement ?? 'shared';
    const memoryMb = options.memoryMb ?? 256;
    this.pool = new WorkerPool({
      maxWorkers: options.maxWorkers ?? 16,
      maxWorkersPerGroup: this.placement === 'dedicated' ? 1 : (options.maxWorkersPerGroup ?? 4),
      idleMs: options.idleMs ?? 300_000,
      spareIdleMs: Math.min(options.idleMs ?? 300_000, 20_000),
      overflowWaitMs: 20,
      maxComponentsPerWorker: options.maxComponentsPerWorker ?? 2000,
      retireRssBytes: Math.floor(memoryMb * 0.6 * 1024 * 1024),
    });
    // Installed npm packages (public code) are readable by every shared worker; bundles are not.
    this.depsRoot = path.join(options.cacheDir, 'deps');
    mkdirSync(this.depsRoot, { recursive: true, mode: 0o755 });
    this.installer = new PackageInstaller({
      cacheDir: options.cacheDir,
      ...(options.onInstallProgress ? { onProgress: options.onInstallProgress } : {}),
    });
    const harness = installHarness(options.cacheDir, this.isolation.workerUid !== null, options.workerScript);
    this.harnessDirs = [...harness.readDirs];
    this.workerScript = harness.script;
  }

  /**
   * Bundles the file, installs the npm packages it imports (newest versions the first time, then
   * exactly the recorded ones until the code changes) and writes the bundle where a worker reads it.
   */
  async prepare(
    file: string,
    options: { readonly label?: string; readonly shared?: InstalledPackages } = {},
  ): Promise<PreparedComponent> {
    const relabel = relabeler(path.resolve(file), options.label);
    try {
      return await this.bundleAndInstall(file, relabel, options.shared);
    } catch (error) {
      throw error instanceof AppError ? relabelError(error, relabel) : error;
    }
  }

  private async bundleAndInstall(
    file: string,
    relabel: Relabel,
    shared: InstalledPackages | undefined,
  ): Promise<PreparedComponent> {
    const scan = await bundleComponent({ file, packages: 'external' });
    const dependencies = planDependencies(scan.imports);
    const lockFile = path.join(this.options.cacheDir, 'locks', `${hashOf(scan.code)}.json`);
    const recorded = readLock(lockFile);
    const adopted = !recorded && shared ? this.installer.adopt(dependencies, shared) : null;
    const installed = adopted ?? (await this.installer.ensure(dependencies, recorded));
    if (installed && JSON.stringify(installed.lock) !== JSON.stringify(recorded)) writeLock(lockFile, installed.lock);
    const bundle = installed ? await bundleComponent({ file, packageDir: installed.dir }) : scan;
    const bundleDir = path.join(this.options.cacheDir, 'bundles', hashOf(bundle.code).slice(0, 32));
    const bundlePath = writeBundle(bundle, bundleDir);
    return {
      entry: bundle.entry,
      codeHash: bundle.codeHash,
      bundlePath,
      files: bundle.files,
      imports: scan.imports,
      lock: installed?.lock ?? {},
      packageDir: installed?.dir ?? null,
      relabel,
    };
  }

  /**
   * Installs one set of packages for several components to share (`prepare`'s `shared`): the
   * npm dependencies of a package of components. `key` names the set; its exact versions are
   * recorded under it, so the same key installs nothing the next time.
   */
  async installShared(key: string, dependencies: readonly Dependency[]): Promise<InstalledPackages | null> {
    const lockFile = path.join(this.options.cacheDir, 'locks', `shared-${hashOf(key)}.json`);
    const recorded = readLock(lockFile);
    const installed = await this.installer.ensure(dependencies, recorded);
    if (installed && JSON.stringify(installed.lock) !== JSON.stringify(recorded)) writeLock(lockFile, installed.lock);
    return installed;
  }

  /**
   * Loads the component in a worker of its group (starting one if needed) and returns a handle on
   * it. `group` names whose components may share a worker (an owner; default one group for all);
   * with `dedicated` placement each `key` and code has its own worker.
   */
  async open(
    prepared: PreparedComponent,
    options: { readonly key: string; readonly purpose: ValidationPurpose; readonly group?: string },
  ): Promise<ComponentHandle> {
    const slot = `${options.purpose}:${prepared.bundlePath}`;
    const group = this.groupOf(prepared, options);
    const source = () =>
      this.pool.acquire({
        group,
        slot,
        load: (worker) => this.load(worker, prepared, slot, options.purpose),
        start: () => this.start(prepared),
      });
    const lease = await source();
    lease.release();
    return new ComponentHandle(lease.loaded, source, {
      graceMs: this.options.graceMs ?? 2000,
      slot,
      relabel: prepared.relabel,
      // One per component and group, however many handles are opened on it (the engine opens one
      // per call): concurrent calls made in the same turn are gathered across them.
      gathering: this.gatherings.of(group, slot),
      gatherQuickMs: this.options.gatherQuickMs ?? QUICK_CALL_MS,
      gatherRequests: this.options.gatherRequests ?? GATHERED_REQUESTS,
      discard: () => {
        // A shared worker serves other components: it stays, and forgets nothing it may need again.
        if (this.placement === 'dedicated') this.pool.dropGroup(group);
      },
    });
  }

  /** Worker processes alive now, how many serve a request, and their resident memory together. */
  poolStats(): { readonly workers: number; readonly busy: number; readonly rssBytes: number } {
    return this.pool.stats();
  }

  async close(): Promise<void> {
    try {
      await this.pool.close();
    } finally {
      const proxy = this.egressProxy;
      this.egressProxy = null;
      await (proxy ? await proxy.catch(() => null) : null)?.close();
      this.removeEgressDir();
    }
  }

  /**
   * The socket of the host's egress proxy (started with the first worker), or null when the
   * policy is `open`. Refuses to start components when the policy cannot be enforced: without
   * a network namespace the proxy would be advice a component can ignore.
   */
  private async egressSocket(): Promise<string | null> {
    switch (this.egress.mode) {
      case 'open':
        return null;
      case 'policy':
        break;
    }
    if (!this.isolation.bwrapPath) {
      throw new AppError(
        'EGRESS_UNENFORCEABLE',
        "components cannot start: the egress policy needs bubblewrap network namespaces, which this machine does not give; install bubblewrap, or set TRIBUTARY_EGRESS=open to give components the host's network",
      );
    }
    this.egressProxy ??= this.startEgressProxy().catch((error: unknown) => {
      // The next worker start tries again rather than failing for good.
      this.egressProxy = null;
      throw new AppError(
        'INTERNAL',
        `the sandbox's egress proxy did not start: ${errorMessage(error)}`,
        {},
        { cause: error },
      );
    });
    return (await this.egressProxy).socketPath;
  }

  private async startEgressProxy(): Promise<EgressProxy> {
    // A folder of its own under the system's temp dir: a unix socket path must stay under 108
    // bytes, which a deep cache folder would not. Mode 0711 lets the workers' uid through to the
    // socket, which it owns (0600); nobody else may list or reach it.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-egress-'));
    chmodSync(dir, 0o711);
    // A process that exits without close() (a test, a crash) leaves no socket folder behind.
    const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
    process.once('exit', removeDir);
    this.removeEgressDir = () => {
      process.removeListener('exit', removeDir);
      removeDir();
    };
    return EgressProxy.start({
      socketPath: path.join(dir, 'egress.sock'),
      isAllowed: addressChecker(this.egress),
      ownerUid: this.isolation.workerUid,
      ownerGid: this.isolation.workerGid,
      ...(this.options.onEgressRefused ? { onRefused: this.options.onEgressRefused } : {}),
    });
  }

  private groupOf(prepared: PreparedComponent, options: { readonly key: string; readonly group?: string }): string {
    switch (this.placement) {
      case 'shared':
        return `group:${options.group ?? 'default'}`;
      case 'dedicated':
        return `component:${options.key}:${prepared.bundlePath}`;
    }
  }

  private async start(prepared: PreparedComponent): Promise<WorkerProcess> {
    const scratchDir = path.join(this.options.cacheDir, 'scratch', randomBytes(8).toString('hex'));
    mkdirSync(path.dirname(scratchDir), { recursive: true, mode: 0o755 });
    mkdirSync(scratchDir, { mode: 0o700 });
    if (this.isolation.workerUid !== null)
      chownSync(scratchDir, this.isolation.workerUid, this.isolation.workerGid ?? this.isolation.workerUid);
    const memoryMb = this.options.memoryMb ?? 256;
    // A dedicated worker reads only its own packages; a shared one any installed package set,
    // since it loads components it has not met yet. Neither reads the bundles folder: code
    // arrives with each load.
    const packageDirs =
      this.placement === 'shared' ? [this.depsRoot] : prepared.packageDir ? [prepared.packageDir] : [];
    const egressSocket = await this.egressSocket();
    const launch = buildLaunchCommand({
      isolation: this.isolation,
      egressSocket,
      workerScript: this.workerScript,
      readDirs: [...this.harnessDirs, ...packageDirs],
      scratchDir,
      memoryMb,
      tmpSizeBytes: (this.options.tmpSizeMb ?? 64) * 1024 * 1024,
    });
    const events = this.options.workerEvents;
    const worker = await WorkerProcess.start({
      launch,
      memoryBytes: memoryMb * 1024 * 1024,
      maxStreamBytes: 12 * 1024 * 1024,
      startTimeoutMs: 15_000,
      onExit: (reason) => {
        rmSync(scratchDir, { recursive: true, force: true });
        events?.exited(reason);
      },
    });
    events?.started();
    return worker;
  }

  private async load(
    worker: WorkerProcess,
    prepared: PreparedComponent,
    slot: string,
    purpose: ValidationPurpose,
  ): Promise<LoadedComponent> {
    const reply = await worker.request(
      {
        type: 'load',
        slot,
        bundleName: path.basename(prepared.bundlePath),
        code: readFileSync(prepared.bundlePath, 'utf8'),
        entry: prepared.entry,
        purpose,
      },
      { deadlineMs: 60_000 },
    );
    if (reply.type === 'failed') throw relabelError(rebuildError(reply.error), prepared.relabel);
    if (reply.type !== 'loaded')
      throw new AppError('INTERNAL', `the sandbox worker answered "load" with "${reply.type}"`);
    return { info: reply.info, issues: reply.issues };
  }
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function readLock(file: string): PackageLock | null {
  if (!existsSync(file)) return null;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { dependencies: PackageLock }).dependencies;
  } catch {
    return null;
  }
}

function writeLock(file: string, lock: PackageLock): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ version: 1, dependencies: lock }, null, 2)}\n`);
}
