// Safe Markdown for model, tool and file text: markdown-it (Debian's
// libjs-markdown-it) with raw HTML off, so any tag in the text comes out
// escaped; no linkify or typographer; links only to http(s) URLs, opened
// without a referrer; images not rendered at all (they would load third-party
// URLs); code blocks highlighted by highlight.js (libjs-highlight.js), whose
// output escapes the code. The page additionally runs the result through
// DOMPurify (node-dompurify) before it reaches the DOM.
//
// `markdownit` and `hljs` are passed in (window globals in the page, the same
// files loaded in Node by the tests).

const SAFE_URL = /^https?:\/\//i;

export function isSafeUrl(url) {
  return SAFE_URL.test(String(url ?? "").trim());
}

export function createMarkdown(markdownit, hljs) {
  const md = markdownit({
    html: false,
    linkify: false,
    typographer: false,
    breaks: false,
    highlight(code, lang) {
      if (!hljs) return "";
      try {
        if (lang && hljs.getLanguage(lang)) return hljs.highlight(lang, code, true).value;
        return hljs.highlightAuto(code).value;
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

// The HTML for `text`, passed through `sanitize` when given (DOMPurify in the
// page). An unclosed code fence while streaming renders as a code block too.
export function renderMarkdown(md, text, sanitize) {
  const html = md.render(String(text ?? ""));
  return sanitize ? sanitize(html) : html;
}
