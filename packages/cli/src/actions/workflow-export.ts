import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import { workflowFileOf } from '@tributary/contracts/workflow-file';
import { stringify as toYaml } from 'yaml';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import type { Output } from '../ui/output.js';
import { runRemote } from './remote-command.js';
import { isYamlFile } from './workflow-file.js';

/** Code as it is written: a literal block keeps every line break, and no line is folded. */
const YAML_OPTIONS = { blockQuote: 'literal', lineWidth: 0 } as const;

export interface WorkflowExportFlags extends RemoteCommandFlags {
  readonly output?: string;
  readonly force?: boolean;
}

/**
 * `workflow export`: a workflow of the server as a workflow file, so one built in the web app can be
 * kept beside its code and deployed again (`workflow deploy` reads it back as the same workflow).
 * Code steps keep their code inline; secret prop values stay `[REDACTED]`, which a deploy to the
 * same server reads as "keep the value".
 */
export async function runWorkflowExport(ref: string, flags: WorkflowExportFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const target = flags.output === undefined ? undefined : path.resolve(flags.output);
    // Refused before asking the server: a file beside the workflow's own step files is not replaced by accident.
    if (target && existsSync(target) && flags.force !== true)
      throw new AppError('NAME_CONFLICT', `${flags.output} already exists; --force replaces it`, {
        file: flags.output,
      });
    const { data } = await client.call(client.api.GET('/v1/workflows/{id}', { params: { path: { id: ref } } }));
    const file = workflowFileOf(data);
    if (!target) return flags.json ? output.json(file) : output.out(toYaml(file, YAML_OPTIONS).trimEnd());
    writeFileSync(target, isYamlFile(target) ? toYaml(file, YAML_OPTIONS) : `${JSON.stringify(file, null, 2)}\n`);
    if (flags.json) return output.json({ file: target, id: data.id, version: data.version });
    output.out(`Wrote ${data.name} (${data.id}) version ${data.version} to ${flags.output}`);
  });
}
