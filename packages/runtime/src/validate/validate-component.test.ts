import { describe, expect, it } from 'vitest';
import {
  describeProps,
  resolveProps,
  validateComponent,
  type ValidationIssue,
  type ValidationPurpose,
} from '@tributary/runtime';

type Raw = Record<string, unknown>;

/** A valid source; each test adds or overrides the fields under test. */
function source(extra: Raw = {}): Raw {
  return { key: 'fx-test', name: 'Test', version: '0.0.1', async run() {}, ...extra };
}

function action(extra: Raw = {}): Raw {
  return source({ type: 'action', ...extra });
}

interface Where {
  prop?: string;
  field?: string;
}

/** Asserts the component is rejected with `rule` at `where`, and returns that issue. */
function rejects(raw: unknown, rule: string, where: Where = {}, purpose: ValidationPurpose = 'run'): ValidationIssue {
  const result = validateComponent(raw, purpose);
  expect(result.component).toBeNull();
  const issue = result.issues.find((candidate) => candidate.level === 'error' && candidate.rule === rule);
  expect(issue, `expected an error ${rule}; got ${JSON.stringify(result.issues)}`).toBeDefined();
  expect(issue).toMatchObject(where);
  return issue as ValidationIssue;
}

/** Asserts the component is accepted with a warning `rule` at `where`. */
function warns(raw: unknown, rule: string, where: Where = {}, purpose: ValidationPurpose = 'run'): ValidationIssue {
  const result = validateComponent(raw, purpose);
  expect(result.component, `expected acceptance; got ${JSON.stringify(result.issues)}`).not.toBeNull();
  const issue = result.issues.find((candidate) => candidate.rule === rule);
  expect(issue, `expected a warning ${rule}; got ${JSON.stringify(result.issues)}`).toMatchObject({
    level: 'warning',
    ...where,
  });
  return issue as ValidationIssue;
}

function clean(raw: unknown, purpose: ValidationPurpose = 'run') {
  const result = validateComponent(raw, purpose);
  expect(result.issues).toEqual([]);
  expect(result.component).not.toBeNull();
  return result.component!;
}

const acme = {
  type: 'app',
  app: 'acme',
  propDefinitions: {
    board: {
      type: 'string',
      label: 'Board',
      async options() {
        return [{ label: 'Main', value: 'b1' }];
      },
    },
    list: {
      type: 'string',
      label: 'List',
      async options({ board }: { board?: string }) {
        return board === 'b1' ? ['todo', 'done'] : [];
      },
    },
  },
  methods: {
    boards() {
      return [];
    },
  },
};

describe('validateComponent: component rules', () => {
  it('accepts a minimal source with no issues and infers type "source"', () => {
    const component = clean(source());
    expect(component.type).toBe('source');
    expect(component.props).toEqual([]);
    expect(component.methods).toEqual({});
    expect(component.hooks).toEqual({});
  });

  it('keeps unknown top-level fields in raw without complaint', () => {
    const component = clean(source({ sampleEmit: { a: 1 }, annotations: { readOnlyHint: true } }));
    expect(component.raw['sampleEmit']).toEqual({ a: 1 });
  });

  it.each([
    ['null', null, 'null'],
    ['undefined', undefined, 'nothing'],
    ['an array', [source()], 'an array'],
    ['a function', () => 1, 'function'],
    ['a string', 'component', 'string'],
  ])('C1: refuses %s as the export', (_label, raw, fragment) => {
    expect(rejects(raw, 'C1').message).toContain(fragment);
  });

  it('C1: refuses a class instance (not a plain object)', () => {
    class Thing {
      run() {}
    }
    rejects(new Thing(), 'C1');
  });

  it('C2: refuses a type other than source/action, with a hint for apps', () => {
    expect(rejects(source({ type: 'trigger' }), 'C2', { field: 'type' }).message).toContain('"trigger"');
    expect(rejects(source({ type: 'app' }), 'C2', { field: 'type' }).message).toContain('app');
  });

  it('C3: refuses a missing or non-function run', () => {
    const { run: _run, ...noRun } = source();
    void _run;
    expect(rejects(noRun, 'C3', { field: 'run' }).message).toContain('no run()');
    rejects(source({ run: 'go' }), 'C3', { field: 'run' });
  });

  it('C4: warns on a missing name for run, rejects it for deploy and publish', () => {
    warns(source({ name: undefined }), 'C4', { field: 'name' }, 'run');
    warns(source({ name: '   ' }), 'C4', { field: 'name' }, 'run');
    rejects(source({ name: undefined }), 'C4', { field: 'name' }, 'deploy');
    rejects(source({ name: '' }), 'C4', { field: 'name' }, 'publish');
  });

  it('C5: warns on a missing version for run and deploy, rejects it for publish', () => {
    warns(source({ version: undefined }), 'C5', { field: 'version' }, 'run');
    warns(source({ version: undefined }), 'C5', { field: 'version' }, 'deploy');
    rejects(source({ version: undefined }), 'C5', { field: 'version' }, 'publish');
  });

  it('C6: warns on a non-semver version, rejects it only for publish', () => {
    warns(source({ version: '1.0' }), 'C6', { field: 'version' }, 'run');
    warns(source({ version: 'v1.0.0' }), 'C6', { field: 'version' }, 'deploy');
    rejects(source({ version: '1.0' }), 'C6', { field: 'version' }, 'publish');
    rejects(source({ version: 1 }), 'C6', { field: 'version' }, 'publish');
    clean(source({ version: '1.2.3-beta.1' }), 'publish');
    clean(source({ version: '0.0.1+build.5' }), 'publish');
  });

  it('C9: refuses hooks on an action', () => {
    rejects(action({ hooks: { async activate() {} } }), 'C9', { field: 'hooks' });
  });

  it('C10: refuses dedupe on an action and unknown strategies', () => {
    rejects(action({ dedupe: 'unique' }), 'C10', { field: 'dedupe' });
    expect(rejects(source({ dedupe: 'newest' }), 'C10', { field: 'dedupe' }).message).toContain('"newest"');
    for (const dedupe of ['unique', 'greatest', 'last'] as const) {
      expect(clean(source({ dedupe })).dedupe).toBe(dedupe);
    }
  });

  it('C11: refuses unknown hooks, non-function hooks and non-object hooks', () => {
    expect(rejects(source({ hooks: { async update() {} } }), 'C11', { field: 'hooks.update' }).message).toContain(
      'update',
    );
    rejects(source({ hooks: { async delete() {} } }), 'C11', { field: 'hooks.delete' });
    rejects(source({ hooks: { activate: true } }), 'C11', { field: 'hooks.activate' });
    rejects(source({ hooks: [] }), 'C11', { field: 'hooks' });
    const component = clean(source({ hooks: { async deploy() {}, async activate() {}, async deactivate() {} } }));
    expect(Object.keys(component.hooks).sort()).toEqual(['activate', 'deactivate', 'deploy']);
  });

  it('C12: refuses non-function methods and a non-object methods field', () => {
    rejects(source({ methods: { helper: 'nope' } }), 'C12', { field: 'methods.helper' });
    rejects(source({ methods: () => 1 }), 'C12', { field: 'methods' });
  });

  it('C13: refuses reserved prop names, $-names and props named like methods', () => {
    rejects(source({ props: { run: { type: 'string' } } }), 'C13', { prop: 'run' });
    rejects(source({ props: { hooks: { type: 'string' } } }), 'C13', { prop: 'hooks' });
    rejects(source({ props: { methods: { type: 'string' } } }), 'C13', { prop: 'methods' });
    rejects(source({ props: { $auth: { type: 'string' } } }), 'C13', { prop: '$auth' });
    expect(
      rejects(source({ props: { check: { type: 'string' } }, methods: { check() {} } }), 'C13', { prop: 'check' })
        .message,
    ).toContain('method');
    rejects(source({ methods: { $emit() {} } }), 'C13', { field: 'methods.$emit' });
    rejects(source({ methods: { run() {} } }), 'C13', { field: 'methods.run' });
  });

  it('C14: refuses interface props on an action but allows $.service.db', () => {
    rejects(action({ props: { timer: '$.interface.timer' } }), 'C14', { prop: 'timer' });
    rejects(action({ props: { http: { type: '$.interface.http' } } }), 'C14', { prop: 'http' });
    clean(action({ props: { db: '$.service.db' } }));
  });

  it('C15: refuses any and data_store on a source; any is fine on an action', () => {
    rejects(source({ props: { blob: { type: 'any' } } }), 'C15', { prop: 'blob' });
    rejects(source({ props: { store: { type: 'data_store' } } }), 'C15', { prop: 'store' });
    clean(action({ props: { blob: { type: 'any', optional: true } } }));
  });

  it('C16: refuses two HTTP or two timer interfaces in one source', () => {
    rejects(source({ props: { a: '$.interface.http', b: '$.interface.http' } }), 'C16', { field: 'props' });
    rejects(source({ props: { a: '$.interface.timer', b: { type: '$.interface.timer' } } }), 'C16', { field: 'props' });
    clean(source({ props: { a: '$.interface.http', b: '$.interface.timer', db: '$.service.db' } }));
  });

  it('C17: refuses a non-function additionalProps and non-object props', () => {
    rejects(source({ additionalProps: {} }), 'C17', { field: 'additionalProps' });
    rejects(source({ props: [] }), 'C17', { field: 'props' });
  });

  it('reports every broken rule, not only the first', () => {
    const result = validateComponent({ type: 'action', dedupe: 'x', hooks: { deploy() {} } });
    const rules = result.issues.filter((issue) => issue.level === 'error').map((issue) => issue.rule);
    expect(rules).toEqual(expect.arrayContaining(['C3', 'C9', 'C10']));
  });
});

describe('validateComponent: prop rules', () => {
  it('P1: refuses a prop without type or propDefinition', () => {
    rejects(source({ props: { x: { label: 'X' } } }), 'P1', { prop: 'x' });
    rejects(source({ props: { x: 5 } }), 'P1', { prop: 'x' });
  });

  it('P2: refuses unknown types, unsupported arrays and types not supported yet', () => {
    expect(rejects(source({ props: { x: { type: 'strng' } } }), 'P2', { prop: 'x' }).message).toContain('"strng"');
    rejects(source({ props: { x: { type: 'object[]' } } }), 'P2', { prop: 'x' });
    rejects(source({ props: { x: { type: 'string[][]' } } }), 'P2', { prop: 'x' });
    rejects(action({ props: { x: { type: 'data_store' } } }), 'P2', { prop: 'x' });
    rejects(source({ props: { x: 'token' } }), 'P2', { prop: 'x' });
  });

  it("P2: accepts Pipedream's http_request, sql, dir and $.interface.apphook props", () => {
    clean(action({ props: { req: { type: 'http_request', optional: true, default: { method: 'POST' } } } }));
    clean(action({ props: { query: { type: 'sql', auth: { app: 'postgresql' } } } }));
    clean(action({ props: { syncDir: { type: 'dir', accessMode: 'read', sync: true, optional: true } } }));
    const hooked = validateComponent(source({ props: { hook: { type: '$.interface.apphook', appProp: 'slack' } } }));
    expect(hooked.component).not.toBeNull();
    expect(hooked.issues).toContainEqual(expect.objectContaining({ level: 'warning', rule: 'P2', prop: 'hook' }));
    rejects(action({ props: { hook: { type: '$.interface.apphook', appProp: 'slack' } } }), 'C14', { prop: 'hook' });
  });

  it('P3: refuses secret on anything but string', () => {
    rejects(source({ props: { n: { type: 'integer', secret: true } } }), 'P3', { prop: 'n' });
    clean(source({ props: { key: { type: 'string', secret: true } } }));
  });

  it('P4: refuses min/max on non-integers, non-integer bounds and min > max', () => {
    rejects(source({ props: { s: { type: 'string', min: 1 } } }), 'P4', { prop: 's' });
    rejects(source({ props: { i: { type: 'integer', min: 1.5 } } }), 'P4', { prop: 'i' });
    rejects(source({ props: { i: { type: 'integer', max: '9' } } }), 'P4', { prop: 'i' });
    expect(
      rejects(source({ props: { i: { type: 'integer', min: 5, max: 1 } } }), 'P4', { prop: 'i' }).message,
    ).toContain('greater');
    clean(source({ props: { nums: { type: 'integer[]', min: 0, max: 10 } } }));
  });

  it('P5: warns about a default on a required prop but accepts it', () => {
    warns(source({ props: { status: { type: 'integer', default: 200 } } }), 'P5', { prop: 'status' });
    clean(source({ props: { status: { type: 'integer', optional: true, default: 200 } } }));
  });

  it('P6: refuses defaults that do not match the type, bounds or options', () => {
    rejects(source({ props: { i: { type: 'integer', optional: true, default: 'five' } } }), 'P6', { prop: 'i' });
    rejects(source({ props: { i: { type: 'integer', optional: true, max: 5, default: 9 } } }), 'P6', { prop: 'i' });
    rejects(source({ props: { c: { type: 'string', optional: true, options: ['a'], default: 'b' } } }), 'P6', {
      prop: 'c',
    });
    rejects(source({ props: { t: { type: '$.interface.timer', default: { intervalSeconds: 5 } } } }), 'P6', {
      prop: 't',
    });
    rejects(source({ props: { t: { type: '$.interface.timer', default: { cron: '* * * * * *' } } } }), 'P6', {
      prop: 't',
    });
  });

  it('P7: refuses mixed or malformed static options', () => {
    expect(
      rejects(source({ props: { c: { type: 'string', options: ['a', { label: 'B', value: 'b' }] } } }), 'P7', {
        prop: 'c',
      }).message,
    ).toContain('mixes');
    rejects(source({ props: { c: { type: 'string', options: [{ label: 'A' }] } } }), 'P7', { prop: 'c' });
    rejects(source({ props: { c: { type: 'string', options: 'a,b' } } }), 'P7', { prop: 'c' });
  });

  it('P8: warns about useQuery without async options', () => {
    warns(source({ props: { q: { type: 'string', useQuery: true } } }), 'P8', { prop: 'q' });
    warns(source({ props: { q: { type: 'string', useQuery: true, options: ['a'] } } }), 'P8', { prop: 'q' });
    clean(
      source({
        props: {
          q: {
            type: 'string',
            useQuery: true,
            async options() {
              return [];
            },
          },
        },
      }),
    );
  });

  it('P9: warns about reloadProps without additionalProps', () => {
    warns(source({ props: { mode: { type: 'string', reloadProps: true } } }), 'P9', { prop: 'mode' });
    clean(
      source({
        props: { mode: { type: 'string', reloadProps: true } },
        async additionalProps() {
          return {};
        },
      }),
    );
  });

  it('P10: refuses malformed propDefinition references', () => {
    rejects(source({ props: { p: { propDefinition: [acme] } } }), 'P10', { prop: 'p' });
    rejects(source({ props: { p: { propDefinition: [acme, 'board', undefined, 1] } } }), 'P10', { prop: 'p' });
    rejects(source({ props: { p: { propDefinition: 'acme.board' } } }), 'P10', { prop: 'p' });
    rejects(source({ props: { p: { propDefinition: [{ app: 'acme' }, 'board'] } } }), 'P10', { prop: 'p' });
    rejects(source({ props: { p: { propDefinition: [acme, 3] } } }), 'P10', { prop: 'p' });
    const missing = rejects(source({ props: { p: { propDefinition: [acme, 'missing'] } } }), 'P10', { prop: 'p' });
    expect(missing.message).toContain('"missing"');
    expect(missing.message).toContain('board, list');
    rejects(source({ props: { p: { propDefinition: [acme, 'board', 'not-a-function'] } } }), 'P10', { prop: 'p' });
  });

  it('P11: refuses non-boolean flags', () => {
    for (const field of ['optional', 'secret', 'disabled', 'hidden', 'reloadProps', 'useQuery']) {
      const issue = rejects(source({ props: { s: { type: 'string', [field]: 'yes' } } }), 'P11', { prop: 's' });
      expect(issue.message).toContain(`"${field}"`);
    }
  });

  it('P12: refuses an app prop without a string slug', () => {
    rejects(source({ props: { acme: { type: 'app' } } }), 'P12', { prop: 'acme' });
    rejects(source({ props: { acme: { type: 'app', app: 7 } } }), 'P12', { prop: 'acme' });
  });

  it('P13: refuses alerts with a bad alertType or without content', () => {
    rejects(source({ props: { a: { type: 'alert', alertType: 'fatal', content: 'x' } } }), 'P13', { prop: 'a' });
    rejects(source({ props: { a: { type: 'alert', alertType: 'info' } } }), 'P13', { prop: 'a' });
    for (const alertType of ['info', 'neutral', 'warning', 'error']) {
      clean(source({ props: { a: { type: 'alert', alertType, content: 'x' } } }));
    }
  });
});

describe('validateComponent: timer declarations', () => {
  it('treats intervalSeconds written on the prop (legacy) as the default', () => {
    const component = clean(source({ props: { timer: { type: '$.interface.timer', intervalSeconds: 60 } } }));
    expect(resolveProps({ specs: component.props, configured: {} }).timer?.schedule).toEqual({
      kind: 'interval',
      intervalSeconds: 60,
    });
    expect(describeProps(component.props)).toEqual([
      { name: 'timer', type: '$.interface.timer', default: { intervalSeconds: 60 } },
    ]);
  });

  it('checks the legacy interval like a default (P6 under 15 s)', () => {
    rejects(source({ props: { timer: { type: '$.interface.timer', intervalSeconds: 5 } } }), 'P6', { prop: 'timer' });
  });
});

describe('validateComponent: propDefinition resolution', () => {
  it('merges the definition with component-level overrides and keeps the input-values function', () => {
    const inputValues = (c: Record<string, unknown>) => ({ board: c['board'] });
    const component = clean(
      action({
        props: {
          acme,
          board: { propDefinition: [acme, 'board'] },
          list: { propDefinition: [acme, 'list', inputValues], optional: true, label: 'Column' },
        },
      }),
    );
    const list = component.props.find((spec) => spec.name === 'list')!;
    expect(list).toMatchObject({ name: 'list', type: 'string', label: 'Column', optional: true });
    expect(list.inputValues).toBe(inputValues);
    expect(list.fromApp?.app).toBe('acme');
    expect(typeof list.options).toBe('function');
    expect(list.raw).not.toHaveProperty('propDefinition');
  });

  it('resolves definitions that themselves use propDefinition, outer fields winning', () => {
    const base = { type: 'app', app: 'base', propDefinitions: { id: { type: 'integer', label: 'Id', min: 1 } } };
    const wrapper = {
      type: 'app',
      app: 'wrapper',
      propDefinitions: { thing: { propDefinition: [base, 'id'], label: 'Thing', description: 'from wrapper' } },
    };
    const component = clean(
      action({ props: { thing: { propDefinition: [wrapper, 'thing'], description: 'mine', optional: true } } }),
    );
    const [spec] = component.props;
    expect(spec).toMatchObject({
      name: 'thing',
      type: 'integer',
      label: 'Thing',
      description: 'mine',
      min: 1,
      optional: true,
    });
    expect(spec?.fromApp?.app).toBe('base');
  });

  it('P10: refuses a propDefinition chain that loops (deeper than 5)', () => {
    const loop: Record<string, unknown> = { type: 'app', app: 'loop', propDefinitions: {} };
    (loop['propDefinitions'] as Record<string, unknown>)['self'] = { propDefinition: [loop, 'self'] };
    expect(
      rejects(action({ props: { p: { propDefinition: [loop, 'self'] } } }), 'P10', { prop: 'p' }).message,
    ).toContain('deeper');
  });

  it('applies prop rules to the merged result', () => {
    rejects(action({ props: { b: { propDefinition: [acme, 'board'], secret: 'yes' } } }), 'P11', { prop: 'b' });
  });
});

describe('describeProps (configurable_props)', () => {
  it('lists props in declaration order, omits db, marks async options and carries the timer default', () => {
    const component = clean(
      source({
        props: {
          note: { type: 'alert', alertType: 'info', content: 'Fixture only.' },
          db: '$.service.db',
          timer: { type: '$.interface.timer', default: { cron: '*/5 * * * *' } },
          http: { type: '$.interface.http', customResponse: true },
          acme,
          color: { type: 'string[]', label: 'Colors', options: ['red', 'green'], optional: true },
          fruit: {
            type: 'string',
            label: 'Fruit',
            useQuery: true,
            async options() {
              return [];
            },
          },
          apiKey: { type: 'string', secret: true },
          repeat: { type: 'integer', min: 1, max: 5, optional: true, default: 2 },
          board: { propDefinition: [acme, 'board'], description: 'Pick one' },
          token: 'string',
        },
      }),
    );
    const described = describeProps(component.props);
    expect(described.map((entry) => entry.name)).toEqual([
      'note',
      'timer',
      'http',
      'acme',
      'color',
      'fruit',
      'apiKey',
      'repeat',
      'board',
      'token',
    ]);
    expect(described).toEqual([
      { name: 'note', type: 'alert', alertType: 'info', content: 'Fixture only.' },
      { name: 'timer', type: '$.interface.timer', default: { cron: '*/5 * * * *' } },
      { name: 'http', type: '$.interface.http', customResponse: true },
      { name: 'acme', type: 'app', app: 'acme' },
      { name: 'color', type: 'string[]', label: 'Colors', optional: true, options: ['red', 'green'] },
      { name: 'fruit', type: 'string', label: 'Fruit', useQuery: true, remoteOptions: true },
      { name: 'apiKey', type: 'string', secret: true },
      { name: 'repeat', type: 'integer', optional: true, default: 2, min: 1, max: 5 },
      { name: 'board', type: 'string', label: 'Board', description: 'Pick one', remoteOptions: true },
      { name: 'token', type: 'string' },
    ]);
    // Nothing but JSON: serializing changes nothing.
    expect(JSON.parse(JSON.stringify(described))).toEqual(described);
  });

  it('gives a timer without any declaration the hourly default', () => {
    const component = clean(source({ props: { timer: '$.interface.timer' } }));
    expect(describeProps(component.props)).toEqual([
      { name: 'timer', type: '$.interface.timer', default: { intervalSeconds: 3600 } },
    ]);
  });
});
