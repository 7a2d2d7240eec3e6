import type { Output } from '../ui/output.js';
import { configuredFromFlags, type PropFlags } from '../local/prop-flags.js';
import type { ApiClient } from './api-client.js';
import type { ConfigurableProp } from './prompt-props.js';

/** True when prompts can be shown: both ends of the conversation are a terminal, and JSON was not asked for. */
export function canPrompt(output: Output, json: boolean): boolean {
  return !json && output.isTty && process.stdin.isTTY === true;
}

/**
 * `--props` and `--prop` first; on a terminal, the props still missing are asked for. Without a
 * terminal the server decides: a required prop left out is its PROP_REQUIRED.
 */
export async function configureProps(options: {
  readonly client: ApiClient;
  readonly output: Output;
  readonly json: boolean;
  readonly componentId: string;
  readonly props: readonly ConfigurableProp[];
  readonly flags: PropFlags;
  readonly promptAll?: boolean;
}): Promise<Record<string, unknown>> {
  const given = configuredFromFlags(options.flags, options.props);
  // `--prop github=apn_…` is short for the account reference an app prop takes.
  for (const prop of options.props) {
    const value = given[prop.name];
    if (prop.type === 'app' && typeof value === 'string') given[prop.name] = { authProvisionId: value };
  }
  const missing = options.props.some((prop) => isPromptable(prop) && !Object.hasOwn(given, prop.name));
  if (!missing || !canPrompt(options.output, options.json)) return given;
  options.output.err('Configuring props...');
  // The prompts (and @inquirer/prompts) load only when a prop is asked for.
  const { promptProps } = await import('./prompt-props.js');
  return promptProps({ ...options, given });
}

/** Props that a user types or picks; interface props other than the timer take no value. */
export function isPromptable(prop: ConfigurableProp): boolean {
  if (prop.type === '$.interface.http' || prop.type === '$.interface.apphook' || prop.type === 'alert') return false;
  if (prop.type.startsWith('$.service')) return false;
  return prop.hidden !== true && prop.disabled !== true;
}
