// Safe Markdown for model, tool and file text: markdown-it (Debian's
// libjs-markdown-it) with raw HTML off, so any tag in the text comes out
// escaped; no linkify or typographer; links only to http(s) URLs, opened
// without a referrer; images not rendered at all (they would load third-party
// URLs); code blocks highlighted by highlight.js (libjs-highlight.js), whose
// output escapes the code. The page additionally runs the result through
// DOMPurify (node-dompurify) before it reaches the DOM, with secureLink as a
// hook that puts back the new-tab target DOMPurify removes.
//
// `markdownit` and `hljs` are passed in (globals of the page's Markdown
// worker, markdown_worker.js; the same files loaded in Node by the tests).
//
// Both libraries have inputs that take them super-linear time (markdown-it
// 8.4.2 on runs of `*_` or `[](`, highlight.js 9.18.5's C-like grammars on a
// long run of words). The worker's time budget (markdown_view.js) is what
// bounds them; the limits below keep the common cases cheap on their own:
// - MAX_MARKDOWN_CHARS: a longer text is not rendered at all but shown as
//   plain text.
// - MAX_HIGHLIGHT_CHARS: a longer code block is shown uncoloured (still
//   escaped by markdown-it). Real code blocks in answers are a few KB; 20 KB
//   is a whole file of a few hundred lines.
// - Code without a language: highlightAuto in highlight.js 9 runs every one
//   of its ~190 grammars over the block (and compiles each on first use),
//   so it is the costliest path and the one most exposed to a slow grammar.
//   It runs only on AUTO_LANGUAGES, and only for blocks up to
//   MAX_AUTO_HIGHLIGHT_CHARS.

const SAFE_URL = /^https?:\/\//i;

export const MAX_MARKDOWN_CHARS = 100_000;
export const MAX_HIGHLIGHT_CHARS = 20_000;
export const MAX_AUTO_HIGHLIGHT_CHARS = 4_000;
export const AUTO_LANGUAGES = ["bash", "cpp", "css", "diff", "go", "javascript", "json", "python",
                               "rust", "sql", "typescript", "xml", "yaml"];

export function isSafeUrl(url) {
  return SAFE_URL.test(String(url ?? "").trim());
}

export function createMarkdown(markdownit, hljs) {
  const autoLanguages = AUTO_LANGUAGES.filter((l) => hljs?.getLanguage(l));
  const md = markdownit({
    html: false,
    linkify: false,
    typographer: false,
    breaks: false,
    highlight(code, lang) {
      if (!hljs || code.length > MAX_HIGHLIGHT_CHARS) return "";
      try {
        if (lang && hljs.getLanguage(lang)) return hljs.highlight(lang, code, true).value;
        if (lang || code.length > MAX_AUTO_HIGHLIGHT_CHARS) return "";
        return hljs.highlightAuto(code, autoLanguages).value;
      } catch {
        return "";  // markdown-it escapes the code itself
      }
    },
  });
  md.validateLink = isSafeUrl;
  md.disable(["image"]);
  const defaultLinkOpen = md.renderer.rules.link_open ??
    ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet("rel", "noopener noreferrer");
    tokens[idx].attrSet("target", "_blank");
    return defaultLinkOpen(tokens, idx, options, env, self);
  };
  // highlight.js output carries class names only; mark blocks for styling.
  md.options.langPrefix = "hljs language-";
  return md;
}

// DOMPurify's afterSanitizeAttributes hook for the page (markdown_view.js):
// DOMPurify drops `target`, which is not on its allow-list, so the link
// rendering above sets it in vain; this sets it again after sanitizing, so
// that a link in an answer opens in a new tab without an opener or a
// referrer and never replaces the dashboard. A link whose href is not
// http(s) (markdown-it made none, but the HTML is the worker's, untrusted)
// loses its href.
export function secureLink(node) {
  if (node?.nodeName !== "A") return;
  const href = node.getAttribute("href");
  if (href === null) {
    node.removeAttribute("target");
    return;
  }
  if (!isSafeUrl(href)) {
    node.removeAttribute("href");
    node.removeAttribute("target");
    return;
  }
  node.setAttribute("target", "_blank");
  node.setAttribute("rel", "noopener noreferrer");
}

// The HTML for `text`, passed through `sanitize` when given (DOMPurify in the
// page). An unclosed code fence while streaming renders as a code block too.
export function renderMarkdown(md, text, sanitize) {
  const html = md.render(String(text ?? ""));
  return sanitize ? sanitize(html) : html;
}
