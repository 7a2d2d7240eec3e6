import { AppError } from '@tributary/contracts';
import {
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_SOURCE_TIMEOUT_MS,
  invokeComponent,
  loadComponentFile,
  resolvePropSpecs,
  resolveProps,
  type Accounts,
  type Component,
  type HttpResponse,
  type InvocationKind,
  type InvocationResult,
  type LoadReport,
  type LogEntry,
  type ResolvedProps,
} from '@tributary/runtime';
import { accountsFromFlags, configuredFromFlags, type PropFlags } from './prop-flags.js';
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
  readonly bundleDir?: string;
}

export interface InvokeOptions {
  readonly event?: unknown;
  readonly onLog?: (entry: LogEntry) => void;
  readonly onRespond?: (response: HttpResponse) => void;
}

export type LoadedComponent = LoadReport & { component: Component };

/**
 * One component running on the author's machine: its code, configured props and local state.
 * `run` and `dev` both drive components through this, so they share every rule.
 */
export class LocalInstance {
  private state: LocalState;
  private endpointBase: string;

  private constructor(
    private readonly options: LocalInstanceOptions,
    private loaded: LoadedComponent,
    private resolved: ResolvedProps,
    readonly accounts: Accounts,
  ) {
    this.state = options.stateDir ? readState(options.stateDir) : freshState();
    this.endpointBase = options.endpointBase;
  }

  /** Points `this.http.endpoint` at where the local endpoint really listens (after `--port 0`). */
  useEndpointBase(base: string): void {
    this.endpointBase = base;
  }

  static async create(options: LocalInstanceOptions): Promise<LocalInstance> {
    const loaded = await LocalInstance.loadCode(options);
    const accounts = accountsFromFlags(options.flags);
    const resolved = await LocalInstance.resolve(options, loaded.component, accounts);
    return new LocalInstance(options, loaded, resolved, accounts);
  }

  static loadCode(options: Pick<LocalInstanceOptions, 'file' | 'bundleDir'>): Promise<LoadedComponent> {
    return loadComponentFile({ file: options.file, purpose: 'run', ...(options.bundleDir ? { bundleDir: options.bundleDir } : {}) });
  }

  private static async resolve(options: LocalInstanceOptions, component: Component, accounts: Accounts): Promise<ResolvedProps> {
    const configured = configuredFromFlags(options.flags, component.props);
    const specs = await resolvePropSpecs({ component, configured, accounts, timeoutMs: timeoutFor(component, options) });
    const finalConfigured = configuredFromFlags(options.flags, specs);
    return resolveProps({ specs, configured: finalConfigured, accounts });
  }

  get component(): Component {
    return this.loaded.component;
  }

  get code(): LoadedComponent {
    return this.loaded;
  }

  get props(): ResolvedProps {
    return this.resolved;
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

  get db(): LocalState['db'] {
    return this.state.db;
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
  async update(next: LoadedComponent, options: InvokeOptions = {}): Promise<{ results: InvocationResult[]; applied: boolean }> {
    const resolved = await LocalInstance.resolve(this.options, next.component, this.accounts);
    const results: InvocationResult[] = [];
    const previous = { loaded: this.loaded, resolved: this.resolved };
    if (this.component.type === 'source') results.push(await this.invoke('deactivate', options));
    this.loaded = next;
    this.resolved = resolved;
    if (this.component.type !== 'source') return { results, applied: true };
    const activate = await this.invoke('activate', options);
    results.push(activate);
    if (activate.ok) return { results, applied: true };
    this.loaded = previous.loaded;
    this.resolved = previous.resolved;
    results.push(await this.invoke('activate', options));
    return { results, applied: false };
  }

  private invokeRaw(kind: InvocationKind, options: InvokeOptions, state: LocalState): Promise<InvocationResult> {
    if (options.event !== undefined && this.component.type === 'action') {
      throw new AppError('EVENT_INVALID', 'actions take no event; give their input with --prop or --props', { field: '--event' });
    }
    return invokeComponent({
      component: this.component,
      props: this.resolved,
      kind,
      event: options.event,
      state: { db: state.db, dedupe: state.dedupe },
      endpointUrl: this.endpointUrl,
      timeoutMs: this.timeoutMs,
      ...(options.onLog ? { onLog: options.onLog } : {}),
      ...(options.onRespond ? { onRespond: options.onRespond } : {}),
    });
  }

  private commit(state: LocalState): void {
    this.state = state;
    if (this.options.stateDir) writeState(this.options.stateDir, state);
  }
}

function timeoutFor(component: Component, options: Pick<LocalInstanceOptions, 'timeoutMs'>): number {
  if (options.timeoutMs !== undefined) return options.timeoutMs;
  return component.type === 'action' ? DEFAULT_ACTION_TIMEOUT_MS : DEFAULT_SOURCE_TIMEOUT_MS;
}
