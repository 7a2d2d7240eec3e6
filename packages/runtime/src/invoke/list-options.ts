import { AppError } from '@tributary/contracts';
import { resolveProps, type Accounts, type AppAuthModes } from '../props/resolve-props.js';
import { staticOptionsShape } from '../props/static-options.js';
import type { Component, PropSpec } from '../types.js';
import { isPlainObject } from '../util/json.js';
import { withTimeout } from '../util/with-timeout.js';
import { buildThis, createAppInstance } from './build-this.js';
import { classifyError } from './classify-error.js';
import { runWithLogSink, type LogEntry } from './log-capture.js';
import { resolvePropSpecs } from './dynamic-props.js';

export interface ListOptionsInput {
  readonly component: Component;
  readonly prop: string;
  readonly configured?: Readonly<Record<string, unknown>>;
  readonly accounts?: Accounts;
  readonly appAuth?: AppAuthModes;
  /** 0-based page number. */
  readonly page?: number;
  /** The `context` the previous page returned. */
  readonly prevContext?: Readonly<Record<string, unknown>>;
  readonly query?: string;
  readonly timeoutMs: number;
}

/** One page of options in the wire shape of `/v1/components/configure` (contract §2.5). */
export interface OptionsPage {
  options: { label: string; value: unknown }[] | null;
  stringOptions: string[] | null;
  context: Record<string, unknown> | null;
  errors: string[];
  observations: LogEntry[];
}

/**
 * Lists one page of a prop's options: static lists directly, async `options()` by calling it with
 * `{ page, prevContext, query?, ...inputValues }` and the right `this` — the app instance for
 * props that come from an app's propDefinitions, the component instance otherwise.
 */
export async function listPropOptions(input: ListOptionsInput): Promise<OptionsPage> {
  const configured = input.configured ?? {};
  const specs = await resolvePropSpecs({
    component: input.component,
    configured,
    timeoutMs: input.timeoutMs,
    ...(input.accounts ? { accounts: input.accounts } : {}),
    ...(input.appAuth ? { appAuth: input.appAuth } : {}),
  }).catch((error: unknown) => {
    // A form lists a static prop's options before the props additionalProps() reads are set, and
    // published components' additionalProps() often fail then (notion's append-block reads
    // `blockTypes.includes`): the static prop's options do not depend on it.
    if (input.component.props.some((candidate) => candidate.name === input.prop)) return input.component.props;
    throw error;
  });
  const spec = specs.find((candidate) => candidate.name === input.prop);
  if (!spec) {
    throw new AppError(
      'PROP_UNKNOWN',
      `the component has no prop "${input.prop}"; it has: ${specs.map((s) => s.name).join(', ')}`,
      {
        prop: input.prop,
      },
    );
  }
  const observations: LogEntry[] = [];
  const page = input.page ?? 0;
  if (Array.isArray(spec.options)) return shapePage(page === 0 ? spec.options : [], null, [], observations);
  if (typeof spec.options !== 'function') {
    throw new AppError(
      'PROP_HAS_NO_OPTIONS',
      `prop "${input.prop}" has no options (neither a list nor an options() method)`,
      {
        prop: input.prop,
      },
    );
  }
  const self = optionsThis(input, spec, specs, configured);
  const extra = spec.inputValues ? spec.inputValues.call(undefined, configured) : {};
  const args = {
    page,
    prevContext: input.prevContext ?? {},
    ...(spec.raw['useQuery'] === true && input.query !== undefined ? { query: input.query } : {}),
    ...(isPlainObject(extra) ? extra : {}),
  };
  const method = spec.options as (this: unknown, opts: unknown) => unknown;
  try {
    const result = await withTimeout(
      runWithLogSink({ write: (level, message) => observations.push({ level, message, ts: Date.now() }) }, () =>
        method.call(self, args),
      ),
      input.timeoutMs,
      'options()',
    );
    if (Array.isArray(result)) return shapePage(result, null, [], observations);
    if (isPlainObject(result) && Array.isArray(result['options'])) {
      const context = isPlainObject(result['context']) ? result['context'] : null;
      return shapePage(result['options'], context, [], observations);
    }
    return shapePage([], null, ['options() must return a list or { options, context }'], observations);
  } catch (error) {
    return { options: null, stringOptions: null, context: null, errors: [classifyError(error).message], observations };
  }
}

function optionsThis(
  input: ListOptionsInput,
  spec: PropSpec,
  specs: readonly PropSpec[],
  configured: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const resolved = resolveProps({
    specs,
    configured,
    ...(input.accounts ? { accounts: input.accounts } : {}),
    ...(input.appAuth ? { appAuth: input.appAuth } : {}),
    partial: true,
  });
  if (spec.fromApp) {
    const slug = spec.fromApp.app;
    const bound = Object.values(resolved.apps).find((app) => app.definition.app === slug);
    return createAppInstance(bound?.definition ?? spec.fromApp, bound?.auth ?? {});
  }
  return buildThis(input.component, resolved, {});
}

function shapePage(
  list: unknown[],
  context: Record<string, unknown> | null,
  errors: string[],
  observations: LogEntry[],
): OptionsPage {
  const shape = staticOptionsShape(list);
  switch (shape) {
    case 'scalars':
      return { options: null, stringOptions: list.map((item) => String(item)), context, errors, observations };
    case 'labelled':
      return {
        options: list.map((item) => {
          const entry = item as Record<string, unknown>;
          return { label: String(entry['label']), value: entry['value'] };
        }),
        stringOptions: null,
        context,
        errors,
        observations,
      };
    case 'mixed':
    case 'invalid':
      return {
        options: null,
        stringOptions: null,
        context,
        errors: [...errors, 'options() returned entries of mixed or invalid shapes'],
        observations,
      };
  }
}
