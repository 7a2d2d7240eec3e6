import { AppError, type ConfigureComponentResultT, type ReloadPropsResultT } from '@tributary/contracts';
import { propProblemsOf, type Accounts, type AppAuthModes, type InvocationResult } from '@tributary/runtime';
import { OWNER_ID } from '../sources/owner.js';
import type { AccountService } from '../accounts/account-service.js';
import type { ComponentRow, ComponentService } from '../components/component-service.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import { newDeliveryId } from '../delivery/delivery-ids.js';
import type { SourceExecutor } from '../sources/source-executor.js';
import { describedProps } from '../sources/source-service.js';
import { propsForForm } from './reload-props.js';
import { buildRunReport, type RunReport } from './run-report.js';

export interface ComponentCallsOptions {
  readonly components: ComponentService;
  readonly executor: SourceExecutor;
  readonly accounts: AccountService;
  /** Deadline of options() and additionalProps(). */
  readonly configureTimeoutMs: number;
  /** Default deadline of an action run (the local `run` uses the same, 30 s). */
  readonly actionTimeoutMs: number;
  /** Delivers a successful run's `$.send.*` calls; without it they are only recorded. */
  readonly deliveries?: DeliveryService;
  readonly owner?: string;
  /** How long a run's answer waits for its sends' first attempts (default 10 s). */
  readonly deliveryWaitMs?: number;
}

/**
 * Calls into a saved component that are not a deployed source's invocations: a prop's options
 * (POST /v1/components/configure), the props after reloadProps (POST /v1/components/props) and an
 * action run (POST /v1/actions/run). App props resolve to their accounts' credentials first.
 */
export class ComponentCalls {
  constructor(private readonly options: ComponentCallsOptions) {}

  async listOptions(input: {
    readonly id: string;
    readonly prop: string;
    readonly configured: Readonly<Record<string, unknown>>;
    readonly page?: number;
    readonly prevContext?: Readonly<Record<string, unknown>>;
    readonly query?: string;
  }): Promise<ConfigureComponentResultT> {
    const { component, accounts, appAuth } = await this.prepare(input.id, input.configured);
    const handle = await this.options.executor.handle(component, this.options.owner ?? OWNER_ID);
    const page = await handle.options({
      prop: input.prop,
      configured: input.configured,
      accounts,
      appAuth,
      page: input.page ?? 0,
      ...(input.prevContext ? { prevContext: input.prevContext } : {}),
      ...(input.query !== undefined ? { query: input.query } : {}),
      timeoutMs: this.options.configureTimeoutMs,
    });
    return {
      options: page.options ?? [],
      string_options: page.stringOptions,
      context: page.context,
      errors: page.errors,
      observations: page.observations.map((entry) => ({ level: entry.level, message: entry.message, ts: entry.ts })),
    };
  }

  /**
   * The component's props once `additionalProps()` ran with these values (values not given yet are
   * no error). A value that stops it is reported in `errors` with the declared props.
   */
  async props(input: {
    /** A saved component's id or key, or code that is not saved yet (an edit before Save). */
    readonly component: { readonly id: string } | { readonly code: string };
    readonly configured: Readonly<Record<string, unknown>>;
  }): Promise<ReloadPropsResultT> {
    const { component, accounts, appAuth } = await this.prepare(input.component, input.configured);
    const handle = await this.options.executor.handle(component, this.options.owner ?? OWNER_ID);
    try {
      const info = await propsForForm({
        handle,
        configured: 'code' in input.component ? keptValues(component, input.configured) : input.configured,
        accounts,
        appAuth,
        timeoutMs: this.options.configureTimeoutMs,
      });
      return { dynamic_props: { configurable_props: info.props }, errors: [], observations: [] };
    } catch (error) {
      if (!(error instanceof AppError) || !['PROP_REQUIRED', 'PROP_INVALID'].includes(error.code)) throw error;
      const problems = propProblemsOf(error);
      return {
        dynamic_props: { configurable_props: describedProps(component) as unknown as Record<string, unknown>[] },
        // One line per prop that failed, so the form can show each.
        errors: problems.length > 0 ? problems.map((problem) => problem.message) : [error.message],
        observations: [],
      };
    }
  }

  /** Runs an action once with these props; the answer is what the local `tributary run --json` prints. */
  async runAction(input: {
    readonly id: string;
    readonly configured: Readonly<Record<string, unknown>>;
    readonly timeoutMs?: number;
  }): Promise<RunReport> {
    const { component, accounts, appAuth } = await this.prepare(input.id, input.configured);
    if (component.component_type !== 'action') {
      throw new AppError(
        'WRONG_COMPONENT_TYPE',
        `"${component.name ?? component.id}" is a source; deploy it (POST /v1/sources) or run it locally with tributary run`,
      );
    }
    const handle = await this.options.executor.handle(component, this.options.owner ?? OWNER_ID);
    // Configuring first turns a missing or invalid prop into a 400, as a deploy does.
    await handle.configure(input.configured, accounts, this.options.configureTimeoutMs, appAuth);
    const result: InvocationResult = await handle.invoke({
      kind: 'run',
      configured: input.configured,
      accounts,
      appAuth,
      state: { db: {}, dedupe: null },
      timeoutMs: input.timeoutMs ?? this.options.actionTimeoutMs,
    });
    const report = buildRunReport({ type: 'action', results: [result], warnings: handle.loaded.issues });
    const { deliveries } = this.options;
    // A failed run's sends are not delivered: the step did not complete (docs/destinations.md).
    if (deliveries && report.ok && report.sends.length > 0) {
      const records = await deliveries.deliver(
        report.sends,
        { owner: this.options.owner ?? 'u_local', runId: newDeliveryId('arun') },
        { waitMs: this.options.deliveryWaitMs ?? 10_000 },
      );
      report.sends = report.sends.map((send, index) => {
        const record = records[index];
        return record
          ? {
              ...send,
              config: record.config,
              delivery: {
                id: record.id,
                run_id: record.run_id,
                status: record.status,
                attempts: record.attempts,
                last_error: record.last_error,
                next_attempt_at: record.next_attempt_at,
              },
            }
          : send;
      });
    }
    return report;
  }

  private async prepare(
    ref: string | { readonly id: string } | { readonly code: string },
    configured: Readonly<Record<string, unknown>>,
  ): Promise<{ component: ComponentRow; accounts: Accounts; appAuth: AppAuthModes }> {
    const component =
      typeof ref === 'string'
        ? await this.options.components.get(ref)
        : 'code' in ref
          ? await this.options.components.unsaved(ref.code)
          : await this.options.components.get(ref.id);
    await this.options.accounts.check(configured, describedProps(component));
    return {
      component,
      accounts: await this.options.accounts.credentialsFor(configured),
      appAuth: await this.options.accounts.appAuthFor(describedProps(component)),
    };
  }
}

/**
 * The values of an unsaved edit's form that still apply: those of props the new code declares.
 * A prop the edit removed would be PROP_UNKNOWN; the form keeps its own copy by name.
 */
function keptValues(
  component: ComponentRow,
  configured: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const declared = new Set(describedProps(component).map((prop) => prop.name));
  return Object.fromEntries(Object.entries(configured).filter(([name]) => declared.has(name)));
}
