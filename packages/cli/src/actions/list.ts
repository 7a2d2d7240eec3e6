import { AppError } from '@tributary/contracts/errors';
import type { SavedComponentT } from '@tributary/contracts';
import { canPrompt } from '../remote/configure-props.js';
import { allPages } from '../remote/pages.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { ListFlags } from '../commands/list.js';
import { runRemote } from './remote-command.js';

export async function runList(what: string | undefined, flags: ListFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const resource =
      what === undefined ? await chooseResource(output, flags.json === true) : ALIASES[what.toLowerCase()];
    if (!resource)
      throw new AppError('USAGE_ERROR', `list what? "${what}" is not one of sources, components, accounts`, {
        field: 'what',
      });
    switch (resource) {
      case 'sources': {
        const sources = await withSpinner(output, 'Loading sources…', () =>
          allPages((page) => client.call(client.api.GET('/v1/users/me/sources', { params: { query: page } }))),
        );
        if (flags.json) return output.json(sources);
        if (sources.length === 0) return output.out('No sources deployed. Deploy one with: tributary deploy FILE');
        const rows = sources.map((source) => [
          source.id,
          source.name_slug,
          source.component_key ?? source.component_id,
          source.active ? 'active' : 'inactive',
          relativeTime(source.updated_at),
          source.endpoint_url ?? '',
        ]);
        for (const line of formatTable(['ID', 'NAME', 'COMPONENT', 'STATE', 'UPDATED', 'ENDPOINT'], rows))
          output.out(line);
        return;
      }
      case 'components': {
        const saved = await withSpinner(output, 'Loading components…', () =>
          allPages((page) => client.call(client.api.GET('/v1/users/me/components', { params: { query: page } }))),
        );
        const components = flags.all === true ? saved : latestVersions(saved);
        if (flags.json) return output.json(components.map(withoutCode));
        if (components.length === 0) return output.out('No components saved. Publish one with: tributary publish FILE');
        for (const line of formatTable(['ID', 'NAME', 'VERSION', 'UPDATED', 'KEY'], components.map(componentRow)))
          output.out(line);
        const hidden = saved.length - components.length;
        if (hidden > 0)
          output.out(`${hidden} older saved version${hidden === 1 ? '' : 's'} not shown; --all lists every one`);
        return;
      }
      case 'accounts': {
        const accounts = await withSpinner(output, 'Loading accounts…', () =>
          allPages((page) => client.call(client.api.GET('/v1/accounts', { params: { query: page } }))),
        );
        if (flags.json) return output.json(accounts);
        if (accounts.length === 0)
          return output.out('No connected accounts. Add one with: tributary accounts create APP --field NAME=VALUE');
        const rows = accounts.map((account) => [
          account.id,
          account.app,
          account.name,
          relativeTime(account.created_at),
        ]);
        for (const line of formatTable(['ID', 'APP', 'NAME', 'CREATED'], rows)) output.out(line);
        return;
      }
    }
  });
}

type Resource = 'sources' | 'components' | 'accounts';

const ALIASES: Record<string, Resource> = {
  sources: 'sources',
  source: 'sources',
  so: 'sources',
  components: 'components',
  component: 'components',
  co: 'components',
  accounts: 'accounts',
  account: 'accounts',
  ac: 'accounts',
};

/** `pd list` without arguments asks which kind of resource. */
async function chooseResource(output: Output, json: boolean): Promise<Resource> {
  if (!canPrompt(output, json))
    throw new AppError('USAGE_ERROR', 'list what? give sources, components or accounts', { field: 'what' });
  // The prompts load only when one is shown: scripts, CI and --json never show one.
  const { select } = await import('@inquirer/prompts');
  return select<Resource>({
    message: 'List',
    choices: [
      { name: 'sources', value: 'sources' },
      { name: 'components', value: 'components' },
      { name: 'accounts', value: 'accounts' },
    ],
  });
}

/** `<sc_id>  <name>  <version>  <relative time>  <key>`, the row `pd publish` prints. */
export function componentRow(component: SavedComponentT): string[] {
  return [
    component.id,
    component.name ?? '',
    component.version ?? '',
    relativeTime(component.updated_at),
    component.key ?? '',
  ];
}

export function withoutCode(component: SavedComponentT): Omit<SavedComponentT, 'code'> {
  const { code, ...rest } = component;
  void code;
  return rest;
}

/**
 * Each component once, at its newest saved version: saving edited code again keeps the older
 * versions on the server (deployed sources may run them), which is history, not a list of
 * components. A component is its key, else its name; the list comes newest first.
 */
export function latestVersions(components: readonly SavedComponentT[]): SavedComponentT[] {
  const seen = new Set<string>();
  return components.filter((component) => {
    const identity =
      component.key !== null
        ? `key:${component.key}`
        : component.name !== null
          ? `name:${component.name}`
          : component.id;
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}
