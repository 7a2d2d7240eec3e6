import { coercePropValue } from '../props/coerce-value.js';
import { parsePropType } from '../props/prop-catalogue.js';
import { staticOptionsShape } from '../props/static-options.js';
import { declaredTimerValue, parseTimerValue } from '../interfaces/timer.js';
import type { ComponentType, PropSpec } from '../types.js';
import type { IssueList } from './issues.js';

const BOOLEAN_FIELDS = [
  'optional',
  'secret',
  'disabled',
  'hidden',
  'reloadProps',
  'useQuery',
  'customResponse',
] as const;
const ALERT_TYPES = ['info', 'neutral', 'warning', 'error'];

export interface PropRuleContext {
  readonly componentType: ComponentType;
  readonly hasAdditionalProps: boolean;
}

/** Applies rules P2–P13 and the prop parts of C14/C15 to one normalised prop. */
export function checkPropRules(spec: PropSpec, context: PropRuleContext, issues: IssueList): void {
  const where = { prop: spec.name };
  const label = `prop "${spec.name}"`;
  const { base, isArray, info } = parsePropType(spec.type);
  if (!info) {
    issues.error('P2', `${label} has unknown type "${spec.type}"`, where);
    return;
  }
  if (isArray && !info.arrays) {
    issues.error('P2', `${label}: type "${base}" has no array form "${spec.type}"`, where);
    return;
  }
  if (info.kind === 'unsupported' && (context.componentType === 'action' || info.sources)) {
    issues.error('P2', `${label}: type "${base}" is not supported by Tributary yet`, where);
  }
  if (context.componentType === 'action' && !info.actions) {
    issues.error('C14', `${label}: interface props (${base}) are for sources only, not actions`, where);
  }
  if (context.componentType === 'source' && !info.sources) {
    issues.error('C15', `${label}: type "${base}" is not allowed in a source`, where);
  }
  for (const field of BOOLEAN_FIELDS) {
    const value = spec.raw[field];
    if (value !== undefined && typeof value !== 'boolean') {
      issues.error('P11', `${label}: "${field}" must be true or false, got ${JSON.stringify(value)}`, where);
    }
  }
  if (spec.raw['secret'] === true && spec.type !== 'string') {
    issues.error('P3', `${label}: "secret" is only allowed on string props, not "${spec.type}"`, where);
  }
  checkBounds(spec, label, base, issues);
  checkOptions(spec, label, issues);
  if (spec.raw['useQuery'] === true && typeof spec.options !== 'function') {
    issues.warn('P8', `${label}: "useQuery" has no effect without an async options() method`, where);
  }
  if (spec.raw['reloadProps'] === true && !context.hasAdditionalProps) {
    issues.warn('P9', `${label}: "reloadProps" has no effect: the component has no additionalProps()`, where);
  }
  if (base === '$.interface.apphook') {
    issues.warn(
      'P2',
      `${label}: "$.interface.apphook" events (app webhooks Pipedream subscribes for you) are not delivered by Tributary; the source runs on its timer, HTTP endpoint or manual runs only`,
      where,
    );
  }
  if (base === 'alert') checkAlert(spec, label, issues);
  if (base === '$.interface.timer') checkTimer(spec, label, issues);
  else if (info.kind === 'input') checkDefault(spec, label, issues);
}

function checkBounds(spec: PropSpec, label: string, base: string, issues: IssueList): void {
  const where = { prop: spec.name };
  const { min, max } = spec.raw;
  if (min === undefined && max === undefined) return;
  if (base !== 'integer') {
    issues.error('P4', `${label}: "min"/"max" are only allowed on integer props, not "${spec.type}"`, where);
    return;
  }
  for (const [field, value] of [
    ['min', min],
    ['max', max],
  ] as const) {
    if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value))) {
      issues.error('P4', `${label}: "${field}" must be an integer, got ${JSON.stringify(value)}`, where);
      return;
    }
  }
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    issues.error('P4', `${label}: "min" (${min}) is greater than "max" (${max})`, where);
  }
}

function checkOptions(spec: PropSpec, label: string, issues: IssueList): void {
  const options = spec.options;
  if (options === undefined || typeof options === 'function') return;
  if (!Array.isArray(options)) {
    issues.error('P7', `${label}: "options" must be a list or an async function`, { prop: spec.name });
    return;
  }
  switch (staticOptionsShape(options)) {
    case 'scalars':
    case 'labelled':
      return;
    case 'mixed':
      issues.error('P7', `${label}: "options" mixes plain values with { label, value } objects`, { prop: spec.name });
      return;
    case 'invalid':
      issues.error('P7', `${label}: every option must be a string, number, boolean or { label, value }`, {
        prop: spec.name,
      });
      return;
  }
}

function checkDefault(spec: PropSpec, label: string, issues: IssueList): void {
  if (spec.default === undefined) return;
  if (spec.raw['optional'] !== true) {
    issues.warn('P5', `${label}: "default" on a required prop; the default counts as the value`, { prop: spec.name });
  }
  const coerced = coercePropValue(spec, spec.default);
  if (!coerced.ok) {
    issues.error('P6', `${label}: "default" ${coerced.reason}`, { prop: spec.name });
  }
}

function checkAlert(spec: PropSpec, label: string, issues: IssueList): void {
  const { alertType, content } = spec.raw;
  if (typeof alertType !== 'string' || !ALERT_TYPES.includes(alertType)) {
    issues.error(
      'P13',
      `${label}: "alertType" must be one of ${ALERT_TYPES.join(', ')}, got ${JSON.stringify(alertType)}`,
      {
        prop: spec.name,
      },
    );
  }
  if (typeof content !== 'string') {
    issues.error('P13', `${label}: an alert needs string "content"`, { prop: spec.name });
  }
}

function checkTimer(spec: PropSpec, label: string, issues: IssueList): void {
  const parsed = parseTimerValue(declaredTimerValue(spec));
  if (!parsed.ok) issues.error('P6', `${label}: default schedule ${parsed.reason}`, { prop: spec.name });
}
