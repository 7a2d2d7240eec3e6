import { describe, expect, it } from 'vitest';
import { MAX_PROP_VALUE_BYTES, resolveProps, validateComponent, type Component } from '@tributary/runtime';

function component(raw: Record<string, unknown>): Component {
  const result = validateComponent({ name: 'Test', version: '0.0.1', async run() {}, ...raw });
  if (!result.component) throw new Error(`invalid test component: ${JSON.stringify(result.issues)}`);
  return result.component;
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

const acme = {
  type: 'app',
  app: 'acme',
  methods: {
    keyLength(this: { $auth: { api_key?: string } }) {
      return String(this.$auth.api_key ?? '').length;
    },
  },
};

describe('resolveProps: user-input props', () => {
  const inputs = component({
    type: 'action',
    props: {
      note: { type: 'alert', alertType: 'info', content: 'Fixture only.' },
      greeting: { type: 'string', optional: true, default: 'hi' },
      apiKey: { type: 'string', secret: true },
      repeat: { type: 'integer', min: 1, max: 5, optional: true, default: 2 },
      loud: { type: 'boolean', optional: true },
      size: {
        type: 'string',
        options: [
          { label: 'Small', value: 's' },
          { label: 'Large', value: 'l' },
        ],
      },
    },
  });

  it('applies defaults, coerces values and leaves absent optional props out', () => {
    const resolved = resolveProps({ specs: inputs.props, configured: { apiKey: 'k', size: 'l', repeat: '3' } });
    expect(resolved.values).toEqual({ greeting: 'hi', apiKey: 'k', repeat: 3, size: 'l' });
    expect(Object.hasOwn(resolved.values, 'loud')).toBe(false);
    expect(Object.hasOwn(resolved.values, 'note')).toBe(false);
    expect(resolved.timer).toBeNull();
    expect(resolved.http).toBeNull();
    expect(resolved.dbProps).toEqual([]);
  });

  it('treats a null configured value as absent, so the default applies', () => {
    const resolved = resolveProps({ specs: inputs.props, configured: { apiKey: 'k', size: 's', greeting: null } });
    expect(resolved.values['greeting']).toBe('hi');
  });

  it('refuses an unknown prop with PROP_UNKNOWN naming it', () => {
    const error = caught(() =>
      resolveProps({ specs: inputs.props, configured: { apiKey: 'k', size: 's', colour: 'red' } }),
    );
    expect(error).toMatchObject({ code: 'PROP_UNKNOWN', details: { prop: 'colour' } });
    expect((error as Error).message).toContain('"colour"');
  });

  it('refuses a missing required prop with PROP_REQUIRED naming it', () => {
    const error = caught(() => resolveProps({ specs: inputs.props, configured: { size: 's' } }));
    expect(error).toMatchObject({ code: 'PROP_REQUIRED', details: { prop: 'apiKey' } });
  });

  it('accepts missing required props in partial mode', () => {
    const resolved = resolveProps({ specs: inputs.props, configured: {}, partial: true });
    expect(resolved.values).toEqual({ greeting: 'hi', repeat: 2 });
  });

  it('refuses out-of-range and non-option values with PROP_INVALID naming the prop', () => {
    expect(
      caught(() => resolveProps({ specs: inputs.props, configured: { apiKey: 'k', size: 's', repeat: 9 } })),
    ).toMatchObject({
      code: 'PROP_INVALID',
      details: { prop: 'repeat' },
    });
    expect(caught(() => resolveProps({ specs: inputs.props, configured: { apiKey: 'k', size: 'm' } }))).toMatchObject({
      code: 'PROP_INVALID',
      details: { prop: 'size' },
    });
  });

  it('counts a default on a required prop as its value', () => {
    const c = component({ type: 'action', props: { status: { type: 'integer', default: 200 } } });
    expect(resolveProps({ specs: c.props, configured: {} }).values).toEqual({ status: 200 });
  });

  it('refuses a configured value over 64 KB with PROP_TOO_LARGE and rule P14', () => {
    expect(MAX_PROP_VALUE_BYTES).toBe(64 * 1024);
    const c = component({ type: 'action', props: { blob: { type: 'string', optional: true } } });
    // JSON adds two quote characters: this string serializes to exactly 64 KB and is accepted.
    const fits = 'a'.repeat(64 * 1024 - 2);
    expect(resolveProps({ specs: c.props, configured: { blob: fits } }).values['blob']).toBe(fits);
    const error = caught(() => resolveProps({ specs: c.props, configured: { blob: `${fits}a` } }));
    expect(error).toMatchObject({ code: 'PROP_TOO_LARGE', details: { prop: 'blob', rule: 'P14' } });
  });
});

describe('resolveProps: app props', () => {
  const withApp = component({ type: 'action', props: { acme } });

  it('finds the account by app slug', () => {
    const resolved = resolveProps({ specs: withApp.props, configured: {}, accounts: { acme: { api_key: 'abc' } } });
    expect(resolved.apps['acme']?.auth).toEqual({ api_key: 'abc' });
    expect(resolved.apps['acme']?.definition.app).toBe('acme');
  });

  it('finds the account by prop name, which wins over the slug', () => {
    const c = component({ type: 'action', props: { work: acme } });
    const resolved = resolveProps({
      specs: c.props,
      configured: {},
      accounts: { work: { api_key: 'by-name' }, acme: { api_key: 'by-slug' } },
    });
    expect(resolved.apps['work']?.auth).toEqual({ api_key: 'by-name' });
    const bySlug = resolveProps({ specs: c.props, configured: {}, accounts: { acme: { api_key: 'by-slug' } } });
    expect(bySlug.apps['work']?.auth).toEqual({ api_key: 'by-slug' });
  });

  it('refuses a missing account with PROP_REQUIRED naming the app prop', () => {
    const error = caught(() => resolveProps({ specs: withApp.props, configured: {} }));
    expect(error).toMatchObject({ code: 'PROP_REQUIRED', details: { prop: 'acme' } });
    expect((error as Error).message).toContain('acme');
    expect(
      caught(() => resolveProps({ specs: withApp.props, configured: {}, accounts: { other: { k: 1 } } })),
    ).toMatchObject({
      code: 'PROP_REQUIRED',
    });
  });

  it('gives an empty $auth in partial mode when no account is connected', () => {
    const resolved = resolveProps({ specs: withApp.props, configured: {}, partial: true });
    expect(resolved.apps['acme']?.auth).toEqual({});
  });
});

describe('resolveProps: interface and service props', () => {
  const timed = component({
    props: {
      timer: { type: '$.interface.timer', default: { intervalSeconds: 60 } },
      http: { type: '$.interface.http', customResponse: true },
      db: '$.service.db',
    },
  });

  it('uses the declared timer default when nothing is configured', () => {
    const resolved = resolveProps({ specs: timed.props, configured: {} });
    expect(resolved.timer).toEqual({ prop: 'timer', schedule: { kind: 'interval', intervalSeconds: 60 } });
    expect(resolved.http).toEqual({ prop: 'http', customResponse: true });
    expect(resolved.dbProps).toEqual(['db']);
  });

  it('lets the configured timer value override the default', () => {
    const resolved = resolveProps({ specs: timed.props, configured: { timer: { cron: '*/5 * * * *' } } });
    expect(resolved.timer?.schedule).toEqual({ kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' });
  });

  it('refuses an invalid configured timer with PROP_INVALID naming the prop', () => {
    const error = caught(() => resolveProps({ specs: timed.props, configured: { timer: { intervalSeconds: 5 } } }));
    expect(error).toMatchObject({ code: 'PROP_INVALID', details: { prop: 'timer' } });
    expect((error as Error).message).toContain('at least 15');
  });

  it('defaults a shorthand HTTP prop to customResponse false and a bare timer to hourly', () => {
    const c = component({ props: { http: '$.interface.http', timer: '$.interface.timer' } });
    const resolved = resolveProps({ specs: c.props, configured: {} });
    expect(resolved.http).toEqual({ prop: 'http', customResponse: false });
    expect(resolved.timer?.schedule).toEqual({ kind: 'interval', intervalSeconds: 3600 });
  });
});
