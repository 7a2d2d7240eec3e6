import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The prop flags shared by run, dev and options. */
export function addPropOptions(command: Command): Command {
  return command
    .option('--prop <NAME=VALUE>', 'set a prop; non-string props parse VALUE as JSON (repeatable)', collect)
    .option('--props <JSON>', 'set several props from one JSON object')
    .option(
      '--auth <APP=JSON>',
      'credentials for an app prop, by app slug or prop name, seen as this.<app>.$auth (repeatable); apps that take none need none',
      collect,
    );
}
