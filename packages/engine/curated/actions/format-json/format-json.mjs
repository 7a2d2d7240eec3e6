import { parseJson } from '../../common/json-value.mjs';

export default {
  key: 'tributary-format-json',
  name: 'Format JSON',
  description: 'Parses JSON text (or takes a value) and returns it as indented or compact JSON text.',
  version: '1.0.0',
  type: 'action',
  props: {
    data: { type: 'string', label: 'JSON', description: 'JSON text, such as an event body.' },
    indent: {
      type: 'integer',
      label: 'Indent',
      description: 'Spaces per level; 0 for one line.',
      default: 2,
      min: 0,
      max: 8,
    },
    sortKeys: { type: 'boolean', label: 'Sort keys', default: false },
  },
  async run({ $ }) {
    const value = parseJson(this.data, 'data');
    const sorted = this.sortKeys ? sortKeys(value) : value;
    const text = JSON.stringify(sorted, null, this.indent);
    $.export('$summary', `formatted ${text.length} characters`);
    return text;
  },
};

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
