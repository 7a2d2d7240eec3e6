import path from 'node:path';
import { FileWatcher } from '../dev/file-watcher.js';
import type { PropFlags } from '../local/prop-flags.js';
import type { Output } from '../ui/output.js';
import type { ApiClient } from './api-client.js';
import { codeForUpload } from './component-ref.js';
import { configureProps } from './configure-props.js';
import { followSource } from './follow-source.js';
import { asAppError } from './remote-exit.js';
import { configurableProps, savedComponentFor } from './saved-component.js';
import { getSource, updateSource, type SourceUpdate } from './source-lookup.js';
import { untilInterrupted } from './source-view.js';

const DEBOUNCE_MS = 150;

export interface DevAttachOptions {
  readonly client: ApiClient;
  readonly output: Output;
  readonly sourceRef: string;
  readonly file: string;
  readonly flags: PropFlags;
  readonly json: boolean;
  readonly signal?: AbortSignal;
}

/**
 * `dev --dc ID FILE` (`pd dev --dc`): replaces the deployed source's code with the local file now
 * and on every save of it or a file it imports (the server runs deactivate, swaps, activate), and
 * streams the source's logs and events until Ctrl+C. A save that does not bundle or that the
 * server refuses is reported and the deployed code keeps running.
 */
export async function devAttach(options: DevAttachOptions): Promise<void> {
  const { client, output, json } = options;
  const notice = (type: string, text: string, extra: Record<string, unknown> = {}): void => {
    if (json) output.json({ type, ...extra, message: text });
    else output.out(text);
  };
  const source = await getSource(client, options.sourceRef);
  const file = path.resolve(options.file);
  let watched: readonly string[] = [file];
  const upload = async (first: boolean): Promise<void> => {
    const { code, files } = await codeForUpload(file);
    watched = files.length > 0 ? files : [file];
    if (first) {
      for (const watchedFile of watched)
        notice('watch', `watch:add | ${path.relative(process.cwd(), watchedFile) || watchedFile}`, {
          file: watchedFile,
        });
      notice('deploying', 'Deploying...');
    }
    const component = await savedComponentFor(client, { kind: 'code', code, file, files });
    const body: SourceUpdate = { component_id: component.id };
    if (first && (options.flags.prop !== undefined || options.flags.props !== undefined)) {
      body.configured_props = await configureProps({
        client,
        output,
        json: true,
        componentId: component.id,
        props: configurableProps(component),
        flags: options.flags,
      });
    }
    await updateSource(client, source.id, body);
  };
  await upload(true);
  const watcher = new FileWatcher({
    debounceMs: DEBOUNCE_MS,
    onChange: (changed) => {
      queue = queue.then(async () => {
        notice('updating', `${path.relative(process.cwd(), changed) || changed} changed; updating...`, {
          file: changed,
        });
        try {
          await upload(false);
          watcher.watch(watched);
          notice('updated', 'Update complete.', { source_id: source.id });
        } catch (error) {
          const appError = asAppError(error);
          if (json) output.json({ type: 'error', error: appError.toJSON() });
          else
            output.err(
              `${output.style('red', 'error')} ${appError.code}: ${appError.message} (the deployed code keeps running)`,
            );
        }
      });
    },
  });
  let queue: Promise<void> = Promise.resolve();
  watcher.watch(watched);
  notice('attached', `Attached to deployed component: ${client.baseUrl}/sources/${source.id}/configuration`, {
    source_id: source.id,
  });
  const stop = untilInterrupted(options.signal);
  const follow = followSource({
    client,
    output,
    sourceId: source.id,
    json,
    signal: stop.signal,
    logs: true,
    onOpen: () => notice('ready', 'Ready for updates!', { source_id: source.id }),
  });
  try {
    await Promise.race([follow, stop.done]);
  } finally {
    watcher.close();
    await queue;
  }
}
