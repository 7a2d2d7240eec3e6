/**
 * The developer reference: every Markdown file of the repository's `docs/` folder, read at build
 * time, so the pages stay in `docs/` and read well on GitHub too. `/docs` is
 * `docs/component-api.md`; `/docs/<slug>` is `docs/<slug>.md`.
 */
import { plainText, renderDoc, textOf, type Heading } from '../markdown/render.js';

const files = import.meta.glob('../../../../docs/*.md', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

export const HOME_SLUG = 'component-api';

export interface DocPage {
  readonly slug: string;
  readonly title: string;
  readonly markdown: string;
}

function titleOf(markdown: string, slug: string): string {
  const match = /^#\s+(.+)$/m.exec(markdown);
  return match?.[1] ? textOf(match[1].replace(/`/g, '')) : slug;
}

export const DOC_PAGES: readonly DocPage[] = Object.entries(files).map(([file, markdown]) => {
  const slug = file.slice(file.lastIndexOf('/') + 1).replace(/\.md$/, '');
  return { slug, title: titleOf(markdown, slug), markdown };
});

/**
 * The sidebar's sections, in reading order: first steps, then how-to pages by topic, then the
 * pages one looks things up in. A new file in docs/ lands under "More" until it is placed here.
 */
const GROUPS: readonly { readonly title: string; readonly slugs: readonly string[] }[] = [
  { title: 'Getting started', slugs: ['README', 'quickstart-source', 'quickstart-action'] },
  {
    title: 'Guides',
    slugs: [
      'components',
      'props',
      'methods-and-hooks',
      'run-and-emit',
      'actions',
      'workflows',
      'destinations',
      'accounts',
      'npm-packages',
      'registry',
      'lifecycle',
      'server',
      'deployment',
      'operations',
      'hardening',
      'environment-variables',
      'isolation',
    ],
  },
  {
    title: 'Reference',
    slugs: [
      HOME_SLUG,
      'cli',
      'rest-api',
      'sse',
      'config',
      'errors',
      'limits',
      'fuzzing',
      'app-catalog',
      'compatibility',
    ],
  },
];

/** Shorter names in the sidebar where the page's own title says more than a list item needs. */
const NAV_TITLES: Record<string, string> = { README: 'Overview' };

export interface DocGroup {
  readonly title: string;
  readonly pages: readonly { readonly slug: string; readonly label: string }[];
}

export function docGroups(pages: readonly DocPage[] = DOC_PAGES): DocGroup[] {
  const bySlug = new Map(pages.map((page) => [page.slug, page]));
  const placed = new Set(GROUPS.flatMap((group) => group.slugs));
  const entry = (page: DocPage) => ({ slug: page.slug, label: NAV_TITLES[page.slug] ?? page.title });
  const groups: DocGroup[] = GROUPS.map((group) => ({
    title: group.title,
    pages: group.slugs.flatMap((slug) => {
      const page = bySlug.get(slug);
      return page ? [entry(page)] : [];
    }),
  }));
  const rest = pages.filter((page) => !placed.has(page.slug)).sort((a, b) => a.title.localeCompare(b.title));
  if (rest.length > 0) groups.push({ title: 'More', pages: rest.map(entry) });
  return groups.filter((group) => group.pages.length > 0);
}

export function findPage(slug: string | undefined): DocPage | null {
  return DOC_PAGES.find((page) => page.slug === (slug ?? HOME_SLUG)) ?? null;
}

export function pagePath(slug: string): string {
  return slug === HOME_SLUG ? '/docs' : `/docs/${slug}`;
}

const rendered = new Map<string, { html: string; headings: readonly Heading[] }>();

export function renderPage(page: DocPage): { html: string; headings: readonly Heading[] } {
  let result = rendered.get(page.slug);
  if (!result) {
    result = renderDoc(page.markdown);
    rendered.set(page.slug, result);
  }
  return result;
}

export interface SearchHit {
  readonly slug: string;
  readonly pageTitle: string;
  readonly id: string;
  readonly heading: string;
  readonly snippet: string;
}

interface Section {
  readonly slug: string;
  readonly pageTitle: string;
  readonly id: string;
  readonly heading: string;
  readonly text: string;
}

let sections: Section[] | null = null;

/** Sections of every page (a heading and the text under it), built on first search. */
function allSections(): Section[] {
  if (sections) return sections;
  sections = [];
  for (const page of DOC_PAGES) {
    const { headings } = renderPage(page);
    const chunks = page.markdown.split(/^#{1,6}\s+.*$/m);
    // chunks[0] is before the first heading; chunks[i + 1] is the text under headings[i].
    headings.forEach((heading, index) => {
      sections?.push({
        slug: page.slug,
        pageTitle: page.title,
        id: heading.id,
        heading: heading.text,
        text: plainText(chunks[index + 1] ?? ''),
      });
    });
  }
  return sections;
}

export function searchDocs(query: string, limit = 12): SearchHit[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return [];
  const scored: { hit: SearchHit; score: number }[] = [];
  for (const section of allSections()) {
    const heading = section.heading.toLowerCase();
    const text = section.text.toLowerCase();
    if (!terms.every((term) => heading.includes(term) || text.includes(term))) continue;
    const score = terms.reduce(
      (sum, term) => sum + (heading.includes(term) ? 10 : 0) + (text.split(term).length - 1),
      0,
    );
    const first = text.indexOf(terms[0] ?? '');
    const start = Math.max(0, first - 40);
    const snippet = `${start > 0 ? '…' : ''}${section.text.slice(start, start + 140)}${section.text.length > start + 140 ? '…' : ''}`;
    scored.push({
      hit: { slug: section.slug, pageTitle: section.pageTitle, id: section.id, heading: section.heading, snippet },
      score,
    });
  }
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => entry.hit);
}
