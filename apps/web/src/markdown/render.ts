/**
 * Markdown to HTML. Docs pages are ours (trusted) and get GitHub-style heading ids, `x.md#y`
 * links rewritten to `/docs/x#y`, and copy buttons on code blocks. Text from components (prop
 * descriptions, alerts) is not ours: its raw HTML is escaped and only http(s), mailto and
 * relative links survive, then DOMPurify keeps only the tags and attributes Markdown makes.
 */
import DOMPurify from 'dompurify';
import GithubSlugger from 'github-slugger';
import { Marked, type Tokens } from 'marked';

export interface Heading {
  readonly depth: number;
  readonly id: string;
  readonly text: string;
}

export interface RenderedDoc {
  readonly html: string;
  readonly headings: readonly Heading[];
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The visible text of rendered inline HTML, as GitHub slugs it. */
export function textOf(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name] ?? '');
}

function safeHref(href: string): string | null {
  return /^(https?:|mailto:|\/|#|\.{0,2}\/|[\w.-]+(\.md)?(#|$))/i.test(href) && !/^\s*javascript:/i.test(href)
    ? href
    : null;
}

/** `x.md#y` → `/docs/x#y`; the reference page itself is `/docs`. Other links are left alone. */
export function docHref(href: string): string {
  const match = /^(?:\.\/)?([A-Za-z0-9_-]+)\.md(#.*)?$/.exec(href);
  if (!match) return href;
  const slug = match[1] ?? '';
  const hash = match[2] ?? '';
  return slug === 'component-api' ? `/docs${hash}` : `/docs/${slug}${hash}`;
}

/**
 * The repository path of a relative link that is not a docs page (`../packages/x.ts`,
 * `decisions/0001.md`), seen from `docs/`; null for pages, anchors and absolute links.
 */
export function repoPath(href: string): string | null {
  if (/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(href) || docHref(href) !== href) return null;
  const parts: string[] = ['docs'];
  for (const part of href.split('#')[0]?.split('/') ?? []) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/') + (href.endsWith('/') ? '/' : '');
}

/** A file of the repository named where a docs page links or shows it: the app has no page for it. */
function repoLink(innerHtml: string, file: string): string {
  return `<span class="repo-link" title="In the repository: ${escapeHtml(file)}">${innerHtml} <span class="muted small">(${escapeHtml(file)})</span></span>`;
}

export function renderDoc(markdown: string): RenderedDoc {
  const slugger = new GithubSlugger();
  const headings: Heading[] = [];
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(token: Tokens.Heading) {
        const inner = this.parser.parseInline(token.tokens);
        const text = textOf(inner);
        const id = slugger.slug(text);
        headings.push({ depth: token.depth, id, text });
        return `<h${token.depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true" tabindex="-1">#</a>${inner}</h${token.depth}>\n`;
      },
      link(token: Tokens.Link) {
        const inner = this.parser.parseInline(token.tokens);
        const file = repoPath(token.href);
        // A file of the repository (code, a decision record) has no page in the app: name it instead.
        if (file !== null) return repoLink(inner, file);
        const href = docHref(token.href);
        const external = /^https?:/i.test(href);
        return `<a href="${escapeHtml(href)}"${token.title ? ` title="${escapeHtml(token.title)}"` : ''}${external ? ' rel="noreferrer" target="_blank"' : ''}>${inner}</a>`;
      },
      image(token: Tokens.Image) {
        // The screenshots beside the docs are the repository's, not the app's: name the file instead.
        const file = repoPath(token.href);
        if (file === null)
          return `<a href="${escapeHtml(token.href)}" rel="noreferrer" target="_blank">${escapeHtml(token.text)}</a>`;
        return repoLink(escapeHtml(token.text), file);
      },
      code(token: Tokens.Code) {
        const lang = (token.lang ?? '').split(/\s/)[0] ?? '';
        return `<div class="code-block"><div class="code-bar"><span class="code-lang">${escapeHtml(lang)}</span><button type="button" class="button button-small" data-copy-code>Copy</button></div><pre><code${lang ? ` class="language-${escapeHtml(lang)}"` : ''}>${escapeHtml(token.text)}</code></pre></div>\n`;
      },
      html(token: Tokens.HTML | Tokens.Tag) {
        // Doc-test markers such as <!-- cli-output --> are for the test suite, not readers.
        return token.text.trim().startsWith('<!--') ? '' : token.text;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { html, headings };
}

const untrusted = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const inner = this.parser.parseInline(token.tokens);
      const href = safeHref(token.href);
      return href ? `<a href="${escapeHtml(href)}" rel="noreferrer noopener" target="_blank">${inner}</a>` : inner;
    },
    image(token: Tokens.Image) {
      return escapeHtml(token.text);
    },
  },
});

const plain = new Marked({ gfm: true });

/**
 * What a reader sees of some Markdown, as one line of text: for search snippets, where `**`,
 * backticks, table pipes and link targets are noise. Code blocks are left out (they are matched
 * by their section's heading, and a snippet of code out of context reads badly).
 */
export function plainText(markdown: string): string {
  const html = plain.parse(markdown, { async: false });
  return textOf(html.replace(/<pre[\s\S]*?<\/pre>/g, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?)])/g, '$1')
    .replace(/\( /g, '(')
    .trim();
}

/** Markdown from a component (descriptions, alerts), with raw HTML shown as text. */
export function renderUntrusted(markdown: string): string {
  return untrusted.parse(markdown, { async: false });
}

/** What Markdown of a component may become: the tags marked writes, links without scripts. */
const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'em',
    'strong',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
  ],
  ALLOWED_ATTR: ['href', 'title', 'rel', 'target', 'align', 'type', 'checked', 'disabled'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|\/|#|\.{0,2}\/|[\w.-]+(?:\.md)?(?:#|$))/i,
};

/**
 * Markdown from a component as HTML safe to put in the page: rendered by `renderUntrusted` (raw
 * HTML escaped, script links dropped), then sanitised by DOMPurify against the page's own DOM, so
 * a trick that gets past the renderer (a parser quirk, a new Markdown feature) still cannot run.
 * Needs a browser DOM: DOMPurify does nothing without one, so it refuses rather than pass through.
 */
export function renderComponentMarkdown(markdown: string): string {
  if (!DOMPurify.isSupported) throw new Error('rendering component Markdown needs a browser DOM');
  return DOMPurify.sanitize(renderUntrusted(markdown), PURIFY_CONFIG);
}
