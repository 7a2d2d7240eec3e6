import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tributaryJson } from './cli-process.js';

const fixture = (name: string): string => path.join(FIXTURES, 'compat', name);

interface Report {
  ok: boolean;
  return_value: unknown;
  logs: { level: string; message: string }[];
  error: { code: string; message: string } | null;
}

describe('app props without credentials (tributary run)', () => {
  it('runs an app the catalog says takes no credentials with an empty $auth and no warning', async () => {
    const { code, json } = await tributaryJson<Report>([
      'run',
      fixture('no-credential-app.mjs'),
      '--prop',
      'text=hi',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(json.return_value).toEqual({ upper: 'HI', authKeys: [] });
    expect(json.logs).toEqual([]);
  });

  it('runs an app the catalog does not know, warning with the app and how to give credentials', async () => {
    const { code, json } = await tributaryJson<Report>(['run', fixture('unknown-app.mjs'), '--json']);
    expect(code).toBe(0);
    expect(json.return_value).toEqual({ auth: {} });
    expect(json.logs).toHaveLength(1);
    expect(json.logs[0]?.level).toBe('warn');
    expect(json.logs[0]?.message).toContain('app "weather_widget" (prop "weather") is not in the app catalog');
    expect(json.logs[0]?.message).toContain("--auth weather_widget='{…}'");
  });

  it('gives an unknown app the credentials passed with --auth, without the warning', async () => {
    const { json } = await tributaryJson<Report>([
      'run',
      fixture('unknown-app.mjs'),
      '--auth',
      'weather_widget={"key":"k1"}',
      '--json',
    ]);
    expect(json.return_value).toEqual({ auth: { key: 'k1' } });
    expect(json.logs).toEqual([]);
  });

  it('refuses an app that needs credentials when none are given (PROP_REQUIRED, exit 2)', async () => {
    const { code, json } = await tributaryJson<Report>(['run', fixture('needs-credentials.mjs'), '--json']);
    expect(code).toBe(2);
    expect(json.ok).toBe(false);
    expect(json.error?.code).toBe('PROP_REQUIRED');
    expect(json.error?.message).toContain('app prop "github" needs a connected account for app "github"');
    expect(json.error?.message).toContain("--auth github='{…}'");
  });
});
