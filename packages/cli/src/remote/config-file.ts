import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One profile of the config file: its keys as written (`api_url`, `api_key`). */
export type ProfileEntries = Record<string, string>;

/** Profiles by name, in file order. */
export type ConfigProfiles = Map<string, ProfileEntries>;

/** `$XDG_CONFIG_HOME/tributary/config`, else `~/.config/tributary/config` (the layout `pd` uses). */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env['XDG_CONFIG_HOME'] && path.isAbsolute(env['XDG_CONFIG_HOME'])
      ? env['XDG_CONFIG_HOME']
      : path.join(os.homedir(), '.config');
  return path.join(base, 'tributary', 'config');
}

/**
 * Parses the INI-style file: `[name]` sections, `key = value` lines, `#` or `;` comments. Keys
 * before any section belong to `default`, as in `pd`'s file.
 */
export function parseConfig(text: string): ConfigProfiles {
  const profiles: ConfigProfiles = new Map();
  let current = 'default';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[([^\]]+)\]$/.exec(line);
    if (section?.[1]) {
      current = section[1].trim();
      if (!profiles.has(current)) profiles.set(current, {});
      continue;
    }
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const entries = profiles.get(current) ?? {};
    entries[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    profiles.set(current, entries);
  }
  return profiles;
}

export function serializeConfig(profiles: ConfigProfiles): string {
  const sections: string[] = [];
  for (const [name, entries] of profiles) {
    const lines = Object.entries(entries).map(([key, value]) => `${key} = ${value}`);
    sections.push([`[${name}]`, ...lines].join('\n'));
  }
  return sections.length === 0 ? '' : `${sections.join('\n\n')}\n`;
}

export function readConfig(file: string): ConfigProfiles {
  return existsSync(file) ? parseConfig(readFileSync(file, 'utf8')) : new Map();
}

/** Writes the file readable by its owner only: it holds API keys. */
export function writeConfig(file: string, profiles: ConfigProfiles): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, serializeConfig(profiles), { mode: 0o600 });
  // writeFileSync keeps the mode of a file that already existed.
  chmodSync(file, 0o600);
}
