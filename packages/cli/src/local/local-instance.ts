import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import {
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_SOURCE_TIMEOUT_MS,
  deploySource,
  unexpectedOutcome,
  updateSource,
  type Accounts,
  type DeployOutcome,
  type HttpResponse,
  type InvocationKind,
  type InvocationResult,
  type InvocationState,
  type LogEntry,
  type RunHook,
  type UpdateOutcome,
  type ValidationIssue,
  type ValidationPurpose,
} from '@tributary/runtime';
import type { ComponentHandle, ComponentInfo, PreparedComponent, PropsInfo, Sandbox } from '@tributary/sandbox';
import { localAppAuth } from './local-app-auth.js';
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

/** One version of the code as the lifecycle sees it: its worker and the props it was configured with. */
interface LocalCode {
  readonly loaded: LoadedCode;
  readonly configured: Record<string, unknown>;
  readonly propsInfo: PropsInfo;
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
 * and local state. `run` and `dev` both drive components through this, so they share every rule;
 * the hook sequencing is the runtime's lifecycle module, the same the server runs.
 */
export class LocalInstance {
  private state: LocalState;
  private endpointBase: string;
  private current: LocalCode;
  /** Not kept in the state directory: every `dev` start activates again. */
  private active = false;

  private constructor(
    private readonly options: LocalInstanceOptions,
    loaded: LoadedCode,
    configured: Record<string, unknown>,
    propsInfo: PropsInfo,
    readonly accounts: Accounts,
  ) {
    this.current = { loaded, configured, propsInfo };
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
    const appAuth = localAppAuth(loaded.info.props);
    const staticProps = loaded.info.props as unknown as PropShape[];
    let configured = configuredFromFlags(options.flags, staticProps);
    let info = await loaded.handle.configure(configured, accounts, timeoutMs, appAuth);
    if (loaded.info.hasAdditionalProps) {
      configured = configuredFromFlags(options.flags, info.props as unknown as PropShape[]);
      info = await loaded.handle.configure(configured, accounts, timeoutMs, appAuth);
    }
    return { configured, info };
  }

  /** Points `this.http.endpoint` at where the local endpoint really listens (after `--port 0`). */
  useEndpointBase(base: string): void {
    this.endpointBase = base;
  }

  get component(): ComponentInfo {
    return this.current.loaded.info;
  }

  get code(): LoadedCode {
    return this.current.loaded;
  }

  get props(): PropsInfo {
    return this.current.propsInfo;
  }

  get isDeployed(): boolean {
    return this.state.deployed;
  }

  /** Whether the endpoint and timer should deliver: after a deploy or activate that succeeded. */
  get isActive(): boolean {
    return this.active;
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
   * The first time a state directory is used, a deploy (`deploy`, then `activate`); null when the
   * directory was deployed before or the component is an action. State is kept only when the deploy
   * is applied, so a failing hook leaves the directory as it was.
   */
  async deployIfNew(options: InvokeOptions = {}): Promise<DeployOutcome | null> {
    if (this.state.deployed || this.component.type !== 'source') return null;
    const outcome = await deploySource({ code: this.current, state: this.state, runHook: this.hookRunner(options) });
    this.keep(outcome, this.current);
    return outcome;
  }

  /** `activate` of the running code, as when a deployed source is switched on (a `dev` restart). */
  activate(options: InvokeOptions = {}): Promise<UpdateOutcome> {
    return this.change(this.current, false, true, options);
  }

  /** `deactivate` of the running code when active (`dev` stopping). */
  deactivate(options: InvokeOptions = {}): Promise<UpdateOutcome> {
    return this.change(this.current, this.active, false, options);
  }

  /** Runs `run` and keeps what it wrote (db writes survive a failed run, contract §3.3). */
  async run(options: InvokeOptions = {}): Promise<InvocationResult> {
    const result = await this.invokeRaw(this.current, 'run', options, this.state);
    this.commit({ ...this.state, ...result.state });
    return result;
  }

  /**
   * Swaps in new code as an update does (contract §5.3), or deploys it when no deploy succeeded
   * yet; the lifecycle module decides which hooks run and what a failure rolls back.
   */
  async update(next: LoadedCode, options: InvokeOptions = {}): Promise<DeployOutcome | UpdateOutcome> {
    const { configured, info } = await LocalInstance.configure(this.options, next, this.accounts);
    const code: LocalCode = { loaded: next, configured, propsInfo: info };
    if (this.component.type !== 'source') {
      this.current = code;
      return { kind: 'applied', ran: [], commit: { results: [], state: this.state } };
    }
    if (!this.state.deployed) {
      const outcome = await deploySource({ code, state: this.state, runHook: this.hookRunner(options) });
      this.keep(outcome, code);
      return outcome;
    }
    return this.change(code, this.active, true, options);
  }

  private async change(
    next: LocalCode,
    wasActive: boolean,
    wantsActive: boolean,
    options: InvokeOptions,
  ): Promise<UpdateOutcome> {
    const outcome = await updateSource({
      current: this.current,
      next,
      wasActive,
      wantsActive,
      state: this.state,
      runHook: this.hookRunner(options),
    });
    this.keep(outcome, next, wantsActive);
    return outcome;
  }

  /** Stores what an outcome says to store, and which code and activity it leaves running. */
  private keep(outcome: DeployOutcome | UpdateOutcome, next: LocalCode, wantsActive = true): void {
    switch (outcome.kind) {
      case 'applied':
        this.current = next;
        this.active = wantsActive;
        this.commit({ ...this.state, ...outcome.commit.state, deployed: true });
        return;
      case 'rolled-back':
        // The previous code stays, and stays active, as the server keeps its row.
        this.commit({ ...this.state, ...outcome.commit.state });
        return;
      case 'refused':
        return;
      default:
        return unexpectedOutcome(outcome);
    }
  }

  private hookRunner(options: InvokeOptions): RunHook<LocalCode> {
    return (code, hook, state) => this.invokeRaw(code, hook, options, state);
  }

  private invokeRaw(
    code: LocalCode,
    kind: InvocationKind,
    options: InvokeOptions,
    state: InvocationState,
  ): Promise<InvocationResult> {
    if (options.event !== undefined && this.component.type === 'action') {
      throw new AppError('EVENT_INVALID', 'actions take no event; give their input with --prop or --props', {
        field: '--event',
      });
    }
    return code.loaded.handle.invoke(
      {
        kind,
        configured: code.configured,
        accounts: this.accounts,
        appAuth: localAppAuth(code.loaded.info.props),
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
