/**
 * The developer reference's anchors: the component API page has exactly the in-page anchors of the
 * product specification (the web app serves it at /docs and links to them), and every link between
 * pages points at a page and a heading that exist, so `x.md#y` (rewritten to /docs/x#y in the app)
 * never lands nowhere.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS, githubSlug, headingText, pageHeadings, readPages } from './doc-test-helpers.js';

const REQUIRED_ANCHORS = [
  'overview',
  'what-is-a-component',
  'quickstarts',
  'differences-between-sources-and-actions',
  'cli',
  'examples',
  'component-api',
  'component-structure',
  'props',
  'user-input-props',
  'interface-props',
  'timer',
  'http',
  'service-props',
  'db',
  'app-props',
  'limits-on-props',
  'methods',
  'hooks',
  'dedupe-strategies',
  'run',
  'emit',
];

/** The sections issue 6 gives pages of their own, each linked from the component API page. */
const LINKED_PAGES = [
  'quickstart-source.md',
  'quickstart-action.md',
  'cli.md',
  'rest-api.md',
  'sse.md',
  'actions.md',
  'npm-packages.md',
  'environment-variables.md',
  'limits.md',
  'lifecycle.md',
];

const pages = readPages();
const byName = new Map(pages.map((page) => [page.name, page]));
const api = byName.get('component-api.md');

/** Markdown links outside code blocks and inline code: [text](target). */
function links(text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) found.push(match[1] ?? '');
  }
  return found;
}

describe('github-style anchors', () => {
  it('are computed the way github-slugger computes them', () => {
    expect(githubSlug(headingText('What is a component?'))).toBe('what-is-a-component');
    expect(githubSlug(headingText('4. Deploy it to a server'))).toBe('4-deploy-it-to-a-server');
    expect(githubSlug(headingText('`$.service.db` and run({ $, steps })'))).toBe('servicedb-and-run--steps-');
    expect(githubSlug(headingText('Resuming with Last-Event-ID'))).toBe('resuming-with-last-event-id');
    const repeated = pageHeadings({
      name: 'x.md',
      text: '# A\n## Run\n```\n## not a heading\n```\n## Run\n## Run-1\n',
    });
    expect(repeated.map((heading) => heading.slug)).toEqual(['a', 'run', 'run-1', 'run-1-1']);
  });
});

describe('docs/component-api.md', () => {
  it('exists, with one title', () => {
    expect(api, 'docs/component-api.md').toBeDefined();
    expect(pageHeadings(api ?? { name: '', text: '' }).filter((heading) => heading.level === 1)).toHaveLength(1);
  });

  it('has exactly the anchors of the specification, in its order', () => {
    const sections = pageHeadings(api ?? { name: '', text: '' }).filter((heading) => heading.level > 1);
    expect(sections.map((heading) => heading.slug)).toEqual(REQUIRED_ANCHORS);
  });

  it('nests the sections the way the specification groups them', () => {
    const level = Object.fromEntries(
      pageHeadings(api ?? { name: '', text: '' }).map((heading) => [heading.slug, heading.level]),
    );
    expect(level['overview']).toBe(2);
    expect(level['component-api']).toBe(2);
    for (const child of ['what-is-a-component', 'quickstarts', 'cli', 'component-structure', 'props', 'run', 'emit']) {
      expect(level[child], child).toBe(3);
    }
    for (const child of ['user-input-props', 'interface-props', 'service-props', 'app-props', 'limits-on-props']) {
      expect(level[child], child).toBe(4);
    }
    for (const child of ['timer', 'http', 'db']) expect(level[child], child).toBe(5);
  });

  it('links every section that has a page of its own', () => {
    const targets = new Set(links(api?.text ?? '').map((target) => target.split('#')[0]));
    expect(LINKED_PAGES.filter((page) => !targets.has(page))).toEqual([]);
    expect(LINKED_PAGES.filter((page) => !byName.has(page))).toEqual([]);
  });
});

describe('links between pages', () => {
  it('point at pages and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(page.text)) {
        if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
        const [file = '', anchor] = target.split('#');
        const targetName = file === '' ? page.name : file;
        if (!targetName.endsWith('.md') || targetName.includes('/')) {
          if (!existsSync(path.join(DOCS, targetName))) broken.push(`${page.name}: ${target}`);
          continue;
        }
        const linked = byName.get(targetName);
        if (!linked) {
          broken.push(`${page.name}: ${target} (no page ${targetName})`);
          continue;
        }
        if (anchor !== undefined && !pageHeadings(linked).some((heading) => heading.slug === anchor)) {
          broken.push(`${page.name}: ${target} (no heading #${anchor} in ${targetName})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
