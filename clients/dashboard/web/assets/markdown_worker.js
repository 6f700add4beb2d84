// The Markdown renderer's own thread (a module worker, same origin, allowed
// by the page's `worker-src 'self'`): markdown-it and highlight.js, the same
// files the page serves, run here so that no text can keep the page's main
// thread busy. markdown_view.js sends {id, text}, gives each render a time
// budget and terminates this worker when it is spent. The HTML posted back is
// untrusted: the page runs it through DOMPurify before it reaches the DOM.
import "./markdown-it.min.js";
import "./highlight.min.js";
import { createMarkdown, renderMarkdown } from "./markdown.js";

// The libraries register themselves on the worker's global object.
const md = createMarkdown(self.markdownit, self.hljs);

self.onmessage = (e) => {
  const { id, text } = e.data ?? {};
  try {
    self.postMessage({ id, html: renderMarkdown(md, text) });
  } catch (err) {
    self.postMessage({ id, error: String(err?.message ?? err) });
  }
};

self.postMessage({ ready: true });
