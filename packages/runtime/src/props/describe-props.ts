import { declaredTimerValue } from '../interfaces/timer.js';
import type { PropSpec } from '../types.js';
import { propKind } from './prop-catalogue.js';

/** One entry of `configurable_props` (contract §2.11): plain JSON, never a function. */
export type ConfigurableProp = Record<string, unknown> & { name: string; type: string };

const COPIED = [
  'label',
  'description',
  'optional',
  'default',
  'useQuery',
  'reloadProps',
  'secret',
  'min',
  'max',
  'disabled',
  'hidden',
  'customResponse',
  'alertType',
  'content',
] as const;

/**
 * Serialises props in declaration order for forms, prompts and the API: static options are
 * listed, async ones become `remoteOptions: true`, `$.service.db` props are left out.
 */
export function describeProps(specs: readonly PropSpec[]): ConfigurableProp[] {
  const out: ConfigurableProp[] = [];
  for (const spec of specs) {
    if (propKind(spec.type) === 'service') continue;
    const entry: ConfigurableProp = { name: spec.name, type: spec.type };
    for (const field of COPIED) {
      const value = spec.raw[field];
      if (value !== undefined && typeof value !== 'function') entry[field] = value;
    }
    if (spec.type === 'app' && spec.appDefinition) entry['app'] = spec.appDefinition.app;
    if (spec.type === '$.interface.timer') entry['default'] = declaredTimerValue(spec);
    if (Array.isArray(spec.options)) entry['options'] = spec.options;
    if (typeof spec.options === 'function') entry['remoteOptions'] = true;
    out.push(entry);
  }
  return out;
}
