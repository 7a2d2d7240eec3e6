import { isPlainObject } from '../util/json.js';

export type OptionsShape = 'scalars' | 'labelled' | 'mixed' | 'invalid';

/** Classifies a static options list (rule P7). */
export function staticOptionsShape(options: readonly unknown[]): OptionsShape {
  const scalars = options.filter((item) => ['string', 'number', 'boolean'].includes(typeof item)).length;
  const labelled = options.filter((item) => isPlainObject(item) && 'label' in item && 'value' in item).length;
  if (scalars === options.length) return 'scalars';
  if (labelled === options.length) return 'labelled';
  if (scalars + labelled === options.length) return 'mixed';
  return 'invalid';
}

/** The values a static options list allows, or null when the prop has no static options. */
export function staticOptionValues(options: unknown): unknown[] | null {
  if (!Array.isArray(options) || options.length === 0) return null;
  return options.map((item: unknown) => (isPlainObject(item) && 'value' in item ? item['value'] : item));
}
