import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { loadCode } from '../local/local-instance.js';
import { localAppAuth } from '../local/local-app-auth.js';
import { accountsFromFlags, configuredFromFlags, type PropShape } from '../local/prop-flags.js';
import type { OptionsCommandOptions } from '../commands/options.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { parseSeconds } from './flag-values.js';
import { pageFlags, printOptionsPage } from './options-page.js';

export async function runOptions(
  file: string,
  prop: string,
  options: OptionsCommandOptions,
  output: Output,
): Promise<number> {
  const json = options.json === true;
  const sandbox = createSandbox(output);
  try {
    const { page, prevContext } = pageFlags(options);
    const { handle, info } = await loadCode(sandbox, file);
    const result = await handle.options({
      prop,
      configured: configuredFromFlags(options, info.props as unknown as PropShape[]),
      accounts: accountsFromFlags(options),
      appAuth: localAppAuth(info.props),
      page,
      ...(prevContext ? { prevContext: prevContext } : {}),
      ...(options.query !== undefined ? { query: options.query } : {}),
      timeoutMs: parseSeconds(options.timeout ?? '30', '--timeout'),
    });
    printOptionsPage(output, result, page, json);
    return result.errors.length === 0 ? EXIT_OK : EXIT_COMPONENT_FAILED;
  } catch (error) {
    return reportFailure(output, error, { json });
  } finally {
    await sandbox.close();
  }
}
