import { parseJson } from '../../common/json-value.mjs';

export default {
  key: 'tributary-pick-fields',
  name: 'Pick Fields',
  description:
    'Returns an object with only the fields named by dotted paths (`user.email`), from JSON text or a value.',
  version: '1.0.1',
  type: 'action',
  props: {
    data: { type: 'string', label: 'JSON', description: 'JSON text of an object.' },
    paths: { type: 'string[]', label: 'Paths', description: 'Dotted paths such as `user.email` or `items.0.id`.' },
  },
  async run({ $ }) {
    const source = parseJson(this.data, 'data');
    const picked = {};
    for (const path of this.paths) {
      const value = path
        .split('.')
        .reduce((at, part) => (at === null || at === undefined ? undefined : at[part]), source);
      if (value !== undefined) picked[path] = value;
    }
    const count = Object.keys(picked).length;
    $.export('$summary', `picked ${count} of ${this.paths.length} ${this.paths.length === 1 ? 'field' : 'fields'}`);
    return picked;
  },
};
