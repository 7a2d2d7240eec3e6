import path from 'node:path';
import { AppError } from '@tributary/contracts';
import {
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_SOURCE_TIMEOUT_MS,
  type Accounts,
  type HttpResponse,
  type InvocationKind,
  type InvocationResult,
  type LogEntry,
  type ValidationIssue,
  type ValidationPurpose,
} from '@tributary/runtime';
import type { ComponentHandle, ComponentInfo, PreparedComponent, PropsInfo, Sandbox } from '@tributary/sandbox';
import { accountsFromFlags, configuredFromFlags, type PropFlags, type PropShape } from './prop-flags.js';
import { freshState, readState, writeState, type LocalState } from './state-dir.js';

export interface LocalInstanceOptions {
  readonly file: string;
  readonly flags: PropFlags;
  /** Directory that keeps db and dedupe state between runs; null keeps it in memory only. */
  readonly stateDir: string | null;
  /** Base of the local endpoint URL, e.g. `http://127.0.0.1:4100`. */
  readonly endpointBase: string;
  /** Overrides the default deadline (300 s for sources, 30 s for actions). */
  readonly timeoutMs?: number;
  readonly sandbox: Sandbox;
}

export interface InvokeOptions {
  readonly event?: unknown;
  readonly onLog?: (entry: LogEntry) => void;
  readonly onRespond?: (response: HttpResponse) => void;
}

/** A component prepared and loaded in its sandbox worker. */
export interface LoadedCode {
  readonly prepared: PreparedComponent;
  readonly handle: ComponentHandle;
  readonly info: ComponentInfo;
  readonly issues: readonly ValidationIssue[];
}

/**
 * Prepares a file (bundle + npm packages) and loads it in a sandbox worker; throws
 * COMPONENT_INVALID with the rule id of the first error.
 */
export async function loadCode(
  sandbox: Sandbox,
  file: string,
  purpose: ValidationPurpose = 'run',
): Promise<LoadedCode> {
  const prepared = await sandbox.prepare(file);
  const handle = await sandbox.open(prepared, { key: path.resolve(file), purpose });
  const first = handle.loaded.issues.find((issue) => issue.level === 'error');
  if (!handle.loaded.info || first) {
    throw new AppError('COMPONENT_INVALID', `${first?.rule ?? 'C1'}: ${first?.message ?? 'invalid component'}`, {
      rule: first?.rule ?? 'C1',
      ...(first?.prop ? { prop: first.prop } : {}),
      ...(first?.field ? { field: first.field } : {}),
      file: prepared.entry,
    });
  }
  return { prepared, handle, info: handle.loaded.info, issues: handle.loaded.issues };
}

/**
 * One component running on the author's machine: its code (in a sandbox worker), configured props
 * and local state. `run` and `dev` both drive components through this, so they share every rule.
 */
export class LocalInstance {
  private state: LocalState;
  private endpointBase: string;

  private constructor(
    private readonly options: LocalInstanceOptions,
    private loaded: LoadedCode,
    private configured: Record<string, unknown>,
    private propsInfo: PropsInfo,
    readonly accounts: Accounts,
  ) {
    this.state = options.stateDir ? readState(options.stateDir) : freshState();
    this.endpointBase = options.endpointBase;
  }

  static async create(options: LocalInstanceOptions): Promise<LocalInstance> {
    const loaded = await loadCode(options.sandbox, options.file);
    const accounts = accountsFromFlags(options.flags);
    const { configured, info } = await LocalInstance.configure(options, loaded, accounts);
    return new LocalInstance(options, loaded, configured, info, accounts);
  }

  /** Reads the prop flags by each prop's type, asking the worker for dynamic props first. */
  private static async configure(options: LocalInstanceOptions, loaded: LoadedCode, accounts: Accounts) {
    const timeoutMs = timeoutFor(loaded.info, options);
    const staticProps = loaded.info.props as unknown as PropShape[];
    let configured = configuredFromFlags(options.flags, staticProps);
    let info = await loaded.handle.configure(configured, accounts, timeoutMs);
    if (loaded.info.hasAdditionalProps) {
      configured = configuredFromFlags(options.flags, info.props as unknown as PropShape[]);
      info = await loaded.handle.configure(configured, accounts, timeoutMs);
    }
    return { configured, info };
  }

  /** Points `this.http.endpoint` at where the local endpoint really listens (after `--port 0`). */
  useEndpointBase(base: string): void {
    this.endpointBase = base;
  }

  get component(): ComponentInfo {
    return this.loaded.info;
  }

  get code(): LoadedCode {
    return this.loaded;
  }

  get props(): PropsInfo {
    return this.propsInfo;
  }

  get isDeployed(): boolean {
    return this.state.deployed;
  }

  get endpointUrl(): string {
    return `${this.endpointBase}/e/${this.state.endpointId}`;
  }

  get endpointId(): string {
    return this.state.endpointId;
  }

  get timeoutMs(): number {
    return timeoutFor(this.component, this.options);
  }

  /**
   * The first time a state directory is used: the deploy hook, then activate. State is kept only
   * when both succeed, so a failing hook leaves the directory as it was.
   */
  async deployIfNew(options: InvokeOptions = {}): Promise<InvocationResult[]> {
    if (this.state.deployed || this.component.type !== 'source') return [];
    const deploy = await this.invokeRaw('deploy', options, this.state);
    if (!deploy.ok) return [deploy];
    const activate = await this.invokeRaw('activate', options, { ...this.state, ...deploy.state });
    if (!activate.ok) return [deploy, activate];
    this.commit({ ...this.state, ...activate.state, deployed: true });
    return [deploy, activate];
  }

  /** Runs `run` or a hook and keeps what it wrote (db writes survive a failed run, contract §3.3). */
  async invoke(kind: InvocationKind, options: InvokeOptions = {}): Promise<InvocationResult> {
    const result = await this.invokeRaw(kind, options, this.state);
    if (kind === 'run' || result.ok) this.commit({ ...this.state, ...result.state });
    return result;
  }

  /**
   * Swaps in new code as an update does (contract §5.3): deactivate with the old code, activate
   * with the new; if the new activate fails, the old code is restored and activated again.
   */
  async update(
    next: LoadedCode,
    options: InvokeOptions = {},
  ): Promise<{ results: InvocationResult[]; applied: boolean }> {
    const { configured, info } = await LocalInstance.configure(this.options, next, this.accounts);
    const results: InvocationResult[] = [];
    const previous = { loaded: this.loaded, configured: this.configured, info: this.propsInfo };
    if (this.component.type === 'source') results.push(await this.invoke('deactivate', options));
    this.loaded = next;
    this.configured = configured;
    this.propsInfo = info;
    if (this.component.type !== 'source') return { results, applied: true };
    const activate = await this.invoke('activate', options);
    results.push(activate);
    if (activate.ok) return { results, applied: true };
    this.loaded = previous.loaded;
    this.configured = previous.configured;
    this.propsInfo = previous.info;
    results.push(await this.invoke('activate', options));
    return { results, applied: false };
  }

  private invokeRaw(kind: InvocationKind, options: InvokeOptions, state: LocalState): Promise<InvocationResult> {
    if (options.event !== undefined && this.component.type === 'action') {
      throw new AppError('EVENT_INVALID', 'actions take no event; give their input with --prop or --props', {
        field: '--event',
      });
    }
    return this.loaded.handle.invoke(
      {
        kind,
        configured: this.configured,
        accounts: this.accounts,
        ...(options.event !== undefined ? { event: options.event } : {}),
        state: { db: state.db, dedupe: state.dedupe },
        endpointUrl: this.endpointUrl,
        timeoutMs: this.timeoutMs,
      },
      {
        ...(options.onLog ? { onLog: options.onLog } : {}),
        ...(options.onRespond ? { onRespond: options.onRespond } : {}),
      },
    );
  }

  private commit(state: LocalState): void {
    this.state = state;
    if (this.options.stateDir) writeState(this.options.stateDir, state);
  }
}

function timeoutFor(info: ComponentInfo, options: Pick<LocalInstanceOptions, 'timeoutMs'>): number {
  if (options.timeoutMs !== undefined) return options.timeoutMs;
  return info.type === 'action' ? DEFAULT_ACTION_TIMEOUT_MS : DEFAULT_SOURCE_TIMEOUT_MS;
}
