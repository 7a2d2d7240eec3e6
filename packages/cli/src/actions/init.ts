import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import { actionTemplate, appActionTemplate, appTemplate, sourceTemplate } from '../init/templates.js';
import type { InitFlags } from '../commands/init.js';
import { EXIT_OK } from '../exit-codes.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';

type Kind = 'source' | 'action' | 'app';

export function runInit(kindText: string, name: string, flags: InitFlags, output: Output): number {
  try {
    const kind = parseKind(kindText);
    const slug = slugify(name);
    if (slug === '')
      throw new AppError('USAGE_ERROR', `"${name}" has no letters or digits to make a key from`, { field: 'name' });
    if ((flags.http || flags.timer || flags.db) && kind !== 'source') {
      throw new AppError('USAGE_ERROR', '--http, --timer and --db are for sources', { field: '--http' });
    }
    const folder = path.resolve(flags.dir ?? '.', slug);
    if (existsSync(folder))
      throw new AppError(
        'NAME_CONFLICT',
        `${path.relative(process.cwd(), folder) || folder} already exists; pick another name or --dir`,
        { file: folder },
      );
    const files: [string, string][] = [];
    switch (kind) {
      case 'source':
        files.push([
          `${slug}.mjs`,
          sourceTemplate({
            key: slug,
            name: titleOf(name),
            http: flags.http === true,
            timer: flags.timer === true,
            db: flags.db === true,
          }),
        ]);
        break;
      case 'action':
        files.push([`${slug}.mjs`, actionTemplate({ key: slug, name: titleOf(name) })]);
        break;
      case 'app':
        files.push([`${slug}.app.mjs`, appTemplate({ slug })]);
        files.push([
          path.join('actions', `get-${slug}-item`, `get-${slug}-item.mjs`),
          appActionTemplate({ slug, key: `${slug}-get-item` }),
        ]);
        break;
    }
    const created: string[] = [];
    for (const [relative, text] of files) {
      const file = path.join(folder, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text, { flag: 'wx' });
      created.push(path.relative(process.cwd(), file) || file);
    }
    if (flags.json) output.json({ ok: true, kind, key: slug, files: created });
    else for (const file of created) output.out(`created ${file}`);
    return EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json: flags.json === true });
  }
}

function parseKind(text: string): Kind {
  switch (text) {
    case 'source':
    case 'action':
    case 'app':
      return text;
    default:
      throw new AppError('USAGE_ERROR', `init what? "${text}" is not one of source, action, app`, { field: 'kind' });
  }
}

/** Keys are lowercase letters, digits, `-` and `_` (the registry's rule). */
export function slugify(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

function titleOf(name: string): string {
  const words = name.replace(/[-_]+/g, ' ').trim();
  return (words.charAt(0).toUpperCase() + words.slice(1)).replace(/'/g, "\\'");
}
