import { checkbox, confirm, input, password, select } from '@inquirer/prompts';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import type { ApiClient } from './api-client.js';
import { isPromptable } from './configure-props.js';

/** One entry of a saved component's `configurable_props` (contract §2.11). */
export type ConfigurableProp = Record<string, unknown> & { name: string; type: string };

interface Choice {
  readonly label: string;
  readonly value: unknown;
}

const MORE = Symbol('more');
const NEW_ACCOUNT = Symbol('new-account');
const MAX_PAGES = 100;

/**
 * Asks on the terminal for each prop not given by flags (`pd deploy`'s prompts): defaults are
 * offered, static and async options are listed page by page, secrets are typed without echo, and
 * app props pick a connected account or create one.
 */
export async function promptProps(options: {
  readonly client: ApiClient;
  readonly output: Output;
  readonly componentId: string;
  readonly props: readonly ConfigurableProp[];
  readonly given: Record<string, unknown>;
  /** Re-ask props that have a default (`dev --prompt-all`). */
  readonly promptAll?: boolean;
}): Promise<Record<string, unknown>> {
  const configured: Record<string, unknown> = { ...options.given };
  for (const prop of options.props) {
    if (!isPromptable(prop) || Object.hasOwn(configured, prop.name)) continue;
    if (prop.default !== undefined && options.promptAll !== true && prop.type === '$.interface.timer') continue;
    const value = await promptOne({ ...options, configured, prop });
    if (value !== undefined) configured[prop.name] = value;
  }
  return configured;
}

async function promptOne(options: {
  readonly client: ApiClient;
  readonly output: Output;
  readonly componentId: string;
  readonly configured: Record<string, unknown>;
  readonly prop: ConfigurableProp;
}): Promise<unknown> {
  const { prop } = options;
  const label = typeof prop.label === 'string' ? prop.label : prop.name;
  const message = `${label}${prop.optional === true ? ' (optional)' : ''}${typeof prop.description === 'string' ? ` — ${prop.description}` : ''}`;
  if (prop.type === 'app') return promptAccount(options.client, options.output, String(prop.app ?? ''), message);
  if (Array.isArray(prop.options) || prop.remoteOptions === true) return promptOptions({ ...options, message });
  switch (prop.type) {
    case 'boolean':
      return confirm({ message, default: typeof prop.default === 'boolean' ? prop.default : false });
    case 'integer': {
      const text = await input({
        message,
        ...(prop.default !== undefined ? { default: String(prop.default) } : {}),
        validate: (value) =>
          (value === '' && prop.optional === true) || /^-?\d+$/.test(value.trim()) || 'a whole number',
      });
      return text === '' ? undefined : Number(text);
    }
    case 'string': {
      const ask = prop.secret === true ? password : input;
      const text = await ask({
        message,
        ...(prop.secret !== true && typeof prop.default === 'string' ? { default: prop.default } : {}),
        validate: (value: string) => value !== '' || prop.optional === true || 'required',
      } as Parameters<typeof input>[0]);
      return text === '' ? undefined : text;
    }
    default: {
      // Arrays, objects and timers: JSON, with the default shown as JSON.
      const text = await input({
        message: `${message} (JSON)`,
        ...(prop.default !== undefined ? { default: JSON.stringify(prop.default) } : {}),
        validate: (value) => {
          if (value === '' && prop.optional === true) return true;
          try {
            JSON.parse(value);
            return true;
          } catch {
            return prop.type === 'string[]' ? true : 'not valid JSON';
          }
        },
      });
      if (text === '') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text.split(',').map((part) => part.trim());
      }
    }
  }
}

async function promptOptions(options: {
  readonly client: ApiClient;
  readonly output: Output;
  readonly componentId: string;
  readonly configured: Record<string, unknown>;
  readonly prop: ConfigurableProp;
  readonly message: string;
}): Promise<unknown> {
  const { prop } = options;
  const multiple = prop.type.endsWith('[]');
  const choices: Choice[] = Array.isArray(prop.options) ? prop.options.map(toChoice) : [];
  let page = 0;
  let context: Record<string, unknown> | null = null;
  let more = prop.remoteOptions === true;
  const query = prop.useQuery === true ? await input({ message: `${options.message} — search` }) : undefined;
  const loadPage = async (): Promise<void> => {
    const result = await withSpinner(options.output, `Loading options of ${prop.name}…`, () =>
      options.client.call(
        options.client.api.POST('/v1/components/configure', {
          body: {
            id: options.componentId,
            prop_name: prop.name,
            configured_props: options.configured,
            page,
            ...(context ? { prev_context: context } : {}),
            ...(query ? { query } : {}),
          },
        }),
      ),
    );
    for (const error of result.errors) options.output.err(`${options.output.style('yellow', 'options')} ${error}`);
    const found = [...result.options.map(toChoice), ...(result.string_options ?? []).map(toChoice)];
    choices.push(...found);
    page += 1;
    context = result.context;
    // Contract §2.5: a page with no options ends it, and so does a context without nextPageToken.
    const token = result.context === null ? 'numeric paging' : result.context['nextPageToken'];
    more = found.length > 0 && result.errors.length === 0 && page < MAX_PAGES && token !== null && token !== undefined;
  };
  if (more) await loadPage();
  for (;;) {
    if (choices.length === 0 && !more) {
      options.output.err(`${prop.name}: no options to pick from; type a value`);
      const text = await input({ message: options.message });
      return text === '' ? undefined : text;
    }
    const entries = [
      ...choices.map((choice) => ({ name: choice.label, value: choice.value as unknown })),
      ...(more ? [{ name: '(load more…)', value: MORE as unknown }] : []),
    ];
    if (multiple) {
      const picked = await checkbox({ message: options.message, choices: entries, pageSize: 15 });
      if (picked.includes(MORE)) {
        await loadPage();
        continue;
      }
      return picked;
    }
    const defaultValue = prop.default;
    const picked = await select({
      message: options.message,
      choices: entries,
      pageSize: 15,
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    });
    if (picked === MORE) {
      await loadPage();
      continue;
    }
    return picked;
  }
}

function toChoice(option: unknown): Choice {
  if (option !== null && typeof option === 'object' && 'value' in option) {
    const entry = option as { label?: unknown; value: unknown };
    return { label: typeof entry.label === 'string' ? entry.label : JSON.stringify(entry.value), value: entry.value };
  }
  return { label: typeof option === 'string' ? option : JSON.stringify(option), value: option };
}

/** Pick a connected account of the app, or create one with the fields of the app's catalog entry. */
async function promptAccount(client: ApiClient, output: Output, app: string, message: string): Promise<unknown> {
  const accounts = await withSpinner(output, `Loading ${app} accounts…`, () =>
    client.call(client.api.GET('/v1/accounts', { params: { query: { app, limit: 100 } } })),
  );
  const choices = [
    ...accounts.data.map((account) => ({
      name: `${account.name} (${account.id})`,
      value: account.id as string | symbol,
    })),
    { name: `Connect a new ${app} account…`, value: NEW_ACCOUNT as string | symbol },
  ];
  const picked = await select({ message: `${message} — ${app} account`, choices });
  if (typeof picked === 'string') return { authProvisionId: picked };
  const catalog = await client.call(client.api.GET('/v1/apps/{slug}', { params: { path: { slug: app } } }));
  const fields: Record<string, string> = {};
  for (const field of catalog.data.fields) {
    const ask = field.secret ? password : input;
    const value = await ask({
      message: `${field.label}${field.optional ? ' (optional)' : ''}`,
      validate: (text: string) => text !== '' || field.optional || 'required',
    } as Parameters<typeof input>[0]);
    if (value !== '') fields[field.name] = value;
  }
  const name = await input({ message: 'Account name', default: `${catalog.data.name} account` });
  const created = await client.call(client.api.POST('/v1/accounts', { body: { app, name, fields } }));
  output.err(`Created account ${created.data.id}`);
  return { authProvisionId: created.data.id };
}
