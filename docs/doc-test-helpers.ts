/**
 * Helpers of the docs tests: read the Markdown pages, find their marked blocks, and run the real
 * `tributary` binary the way a reader would.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTributary } from '../tools/test-support/tributary-server.js';

export const DOCS = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(DOCS, '..');
export const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
export const EXAMPLES_DIR = 'fixtures/components/docs';

export interface Page {
  readonly name: string;
  readonly text: string;
}

export function readPages(): Page[] {
  return readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ name, text: readFileSync(path.join(DOCS, name), 'utf8') }));
}

/** A fenced code block of a page, with the HTML comment right before it (blank lines allowed between). */
export interface Block {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  /** The lines between the fences, joined with "\n" (no trailing newline). */
  readonly content: string;
  /** Text of the `<!-- ... -->` comment right before the block, trimmed, or null. */
  readonly marker: string | null;
}

export function parseBlocks(page: Page): Block[] {
  const lines = page.text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    i += 1;
    while (i < lines.length && !/^```\s*$/.test(lines[i] ?? '')) {
      body.push(lines[i] ?? '');
      i += 1;
    }
    if (i >= lines.length) throw new Error(`${page.name}:${start + 1}: code block is never closed`);
    let j = start - 1;
    while (j >= 0 && (lines[j] ?? '').trim() === '') j -= 1;
    const comment = /^<!--\s*(.*?)\s*-->$/.exec((lines[j] ?? '').trim());
    blocks.push({
      page: page.name,
      line: start + 1,
      lang: open[1] ?? '',
      content: body.join('\n'),
      marker: comment?.[1] ?? null,
    });
  }
  return blocks;
}

/** Every `<!-- ... -->` comment of a page that is not directly followed by a code block. */
export function danglingMarkers(page: Page): { line: number; marker: string }[] {
  const lines = page.text.split('\n');
  const out: { line: number; marker: string }[] = [];
  lines.forEach((text, index) => {
    const comment = /^<!--\s*(.*?)\s*-->$/.exec(text.trim());
    if (!comment) return;
    let k = index + 1;
    while (k < lines.length && (lines[k] ?? '').trim() === '') k += 1;
    if (!/^```/.test(lines[k] ?? '')) out.push({ line: index + 1, marker: comment[1] ?? '' });
  });
  return out;
}

/** Splits a command line the way a POSIX shell would for the quoting the pages use ('…', "…", \x). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i] ?? '';
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in: ${line}`);
      current += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '"') {
      i += 1;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && ['"', '\\', '$', '`'].includes(line[i + 1] ?? '')) i += 1;
        current += line[i] ?? '';
        i += 1;
      }
      if (i >= line.length) throw new Error(`unterminated " in: ${line}`);
      inWord = true;
    } else if (ch === '\\') {
      current += line[i + 1] ?? '';
      inWord = true;
      i += 1;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** One `$ command` of a console block, the output shown under it, and the exit code a following `$ echo $?` shows. */
export interface ConsoleStep {
  readonly command: string;
  readonly expected: string;
  readonly exitCode: number;
}

export function consoleSteps(block: Block): ConsoleStep[] {
  const lines = block.content.split('\n');
  const raw: { command: string; output: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith('$ ')) raw.push({ command: line.slice(2), output: [] });
    else if (raw.length === 0)
      throw new Error(`${block.page}:${block.line}: console block must start with a "$ " line`);
    else raw[raw.length - 1]?.output.push(line);
  }
  const steps: ConsoleStep[] = [];
  for (let i = 0; i < raw.length; i += 1) {
    const step = raw[i];
    if (!step) continue;
    if (step.command === 'echo $?') throw new Error(`${block.page}:${block.line}: "echo $?" must follow a command`);
    const next = raw[i + 1];
    let exitCode = 0;
    if (next?.command === 'echo $?') {
      exitCode = Number(next.output.join('\n').trim());
      if (!Number.isInteger(exitCode)) throw new Error(`${block.page}:${block.line}: "echo $?" must show a number`);
      i += 1;
    }
    steps.push({ command: step.command, expected: step.output.join('\n'), exitCode });
  }
  return steps;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `tributary` binary with `args`, from the repository root unless told otherwise. */
export function tributary(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd ?? REPO,
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, NO_COLOR: '1', ...options.env },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The run report (or other JSON object) a `--json` command prints on its single stdout line. */
export async function tributaryJson<T = Record<string, unknown>>(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<{ code: number; json: T; stderr: string }> {
  const result = await tributary(args, options);
  const lines = result.stdout.trimEnd().split('\n');
  if (lines.length !== 1)
    throw new Error(`expected one JSON line on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { code: result.code, json: JSON.parse(lines[0] ?? '') as T, stderr: result.stderr };
}

/** `tributary <args>` from a console block, as arguments of the binary. */
export function commandArgs(command: string): string[] {
  const words = shellWords(command);
  if (words[0] !== 'tributary') throw new Error(`console commands must start with "tributary": ${command}`);
  return words.slice(1);
}

/**
 * The anchor GitHub (and the web app, through github-slugger) gives a heading: lower case, every
 * character that is not a letter, mark, digit, `_`, `-` or space dropped, spaces turned into `-`.
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text a heading renders to: inline code, links, emphasis and HTML reduced to their text. */
export function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(.+?)\1/g, '$2')
    .trim();
}

export interface Heading {
  readonly level: number;
  readonly text: string;
  /** Unique within the page, as github-slugger numbers repeats: `x`, `x-1`, `x-2`. */
  readonly slug: string;
}

/** The ATX headings of a page outside code blocks, with their anchors. */
export function pageHeadings(page: Page): Heading[] {
  const seen = new Map<string, number>();
  const headings: Heading[] = [];
  let fenced = false;
  for (const line of page.text.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const text = headingText(match[2] ?? '');
    const base = githubSlug(text);
    let slug = base;
    let count = seen.get(base) ?? 0;
    while (seen.has(slug)) {
      count += 1;
      slug = `${base}-${count}`;
    }
    seen.set(base, count);
    seen.set(slug, 0);
    headings.push({ level: match[1]?.length ?? 0, text, slug });
  }
  return headings;
}

/** A real `tributary start` on a temporary data directory, with a known admin key. */
export interface RunningServer {
  readonly base: string;
  readonly key: string;
  /** Lines the server printed (stdout and stderr), for failure messages. */
  readonly lines: string[];
  /** Calls `/v1` with the admin key; the JSON body (or null) and the status. */
  api<T = Record<string, unknown>>(method: string, route: string, body?: unknown): Promise<{ status: number; json: T }>;
  stop(): Promise<void>;
}

export async function startServer(options: { dataDir: string; env?: NodeJS.ProcessEnv }): Promise<RunningServer> {
  const server = await startTributary({
    key: 'trb_docs_pages_admin_key_0123456789',
    dataDir: options.dataDir,
    ...(options.env ? { env: options.env } : {}),
  });
  return {
    base: server.base,
    key: server.key,
    lines: server.lines,
    async api<T>(method: string, route: string, body?: unknown) {
      const { status, body: json } = await server.api<T>(method, route, body);
      return { status, json };
    },
    stop: () => server.stop(),
  };
}
