import { AppError } from '@tributary/contracts';
import { normalizeProp } from '../props/normalize-prop.js';
import { resolveProps, type Accounts, type AppAuthModes } from '../props/resolve-props.js';
import type { Component, PropSpec } from '../types.js';
import { isPlainObject } from '../util/json.js';
import { withTimeout } from '../util/with-timeout.js';
import { IssueList } from '../validate/issues.js';
import { checkPropRules } from '../validate/prop-rules.js';
import { buildThis } from './build-this.js';
import { classifyError } from './classify-error.js';
import { runWithLogSink, type LogEntry } from './log-capture.js';

export interface DynamicPropsInput {
  readonly component: Component;
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts?: Accounts;
  readonly appAuth?: AppAuthModes;
  readonly timeoutMs: number;
  readonly onLog?: (entry: LogEntry) => void;
}

/**
 * The component's final prop list: static props merged with what `additionalProps()` returns for
 * the configured values so far (contract §2.10). Components without it get their static props.
 */
export async function resolvePropSpecs(input: DynamicPropsInput): Promise<readonly PropSpec[]> {
  const { component } = input;
  if (!component.additionalProps) return component.props;
  const partial = resolveProps({
    specs: component.props,
    configured: pick(input.configured, component.props),
    ...(input.accounts ? { accounts: input.accounts } : {}),
    ...(input.appAuth ? { appAuth: input.appAuth } : {}),
    partial: true,
  });
  const self = buildThis(component, partial, {});
  const additional = component.additionalProps;
  let returned: unknown;
  try {
    returned = await withTimeout(
      runWithLogSink({ write: (level, message) => input.onLog?.({ level, message, ts: Date.now() }) }, () =>
        // Contract §2.10: the previous prop definitions, as the author declared them.
        additional.call(self, component.raw['props'] ?? {}),
      ),
      input.timeoutMs,
      'additionalProps()',
    );
  } catch (error) {
    const serialized = classifyError(error);
    throw new AppError(serialized.code, `additionalProps(): ${serialized.message}`, { field: 'additionalProps' });
  }
  if (returned === undefined || returned === null) return component.props;
  if (!isPlainObject(returned)) {
    throw new AppError('COMPONENT_INVALID', 'additionalProps() must return an object of props', {
      rule: 'C17',
      field: 'additionalProps',
    });
  }
  const issues = new IssueList();
  const merged = new Map(component.props.map((spec) => [spec.name, spec] as const));
  for (const [name, declared] of Object.entries(returned)) {
    const spec = normalizeProp(name, declared, issues);
    if (!spec) continue;
    if (spec.type === '$.service.db') {
      issues.error(
        'C17',
        `additionalProps() returned "${name}" of type $.service.db, which cannot be added dynamically`,
        {
          prop: name,
        },
      );
    }
    checkPropRules(spec, { componentType: component.type, hasAdditionalProps: true }, issues);
    merged.set(name, spec);
  }
  const firstError = issues.items.find((issue) => issue.level === 'error');
  if (firstError) {
    throw new AppError('COMPONENT_INVALID', `additionalProps(): ${firstError.message}`, {
      rule: firstError.rule,
      ...(firstError.prop ? { prop: firstError.prop } : {}),
    });
  }
  return [...merged.values()];
}

function pick(configured: Readonly<Record<string, unknown>>, specs: readonly PropSpec[]): Record<string, unknown> {
  const names = new Set(specs.map((spec) => spec.name));
  return Object.fromEntries(Object.entries(configured).filter(([name]) => names.has(name)));
}
