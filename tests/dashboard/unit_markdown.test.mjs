// Markdown from a model renders formatting but never markup of its own.
import test from "node:test";
import assert from "node:assert/strict";
import { markdownit, hljs } from "./load_vendor.mjs";
import {
  AUTO_LANGUAGES, MAX_AUTO_HIGHLIGHT_CHARS, MAX_HIGHLIGHT_CHARS, MAX_MARKDOWN_CHARS, createMarkdown, isSafeUrl, renderMarkdown,
  secureLink,
} from "../../clients/dashboard/web/assets/markdown.js";

const md = createMarkdown(markdownit, hljs);

test("tables and highlighted code blocks render", () => {
  const html = renderMarkdown(md, "| a | b |\n|---|---|\n| 1 | 2 |\n\n```cpp\nint x = 1;\n```\n");
  assert.match(html, /<table>/);
  assert.match(html, /<td>1<\/td>/);
  assert.match(html, /<code class="hljs language-cpp"><span class="hljs-keyword">int<\/span>/);
});

test("raw HTML comes out escaped", () => {
  const html = renderMarkdown(md, '<img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n<div onclick=x>hi</div>');
  assert.ok(!/<img|<script|<div/i.test(html), html);
  assert.match(html, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;/);
  assert.match(html, /&lt;script&gt;/);
});

test("code blocks escape what they hold", () => {
  const html = renderMarkdown(md, "```\n<script>alert(1)</script>\n```\n");
  assert.ok(!/<script/i.test(html), html);
});

test("links only to http(s), images never load", () => {
  const html = renderMarkdown(md, "[a](javascript:alert(1)) [b](data:text/html,x) [c](https://example.org) ![i](https://example.org/t.png)");
  assert.ok(!/href="javascript|href="data/i.test(html), html);
  assert.match(html, /<a href="https:\/\/example.org" rel="noopener noreferrer" target="_blank">c<\/a>/);
  assert.ok(!/<img/i.test(html));
  assert.ok(isSafeUrl("http://x"));
  assert.ok(!isSafeUrl("vbscript:x"));
});

// The page's DOMPurify hook, on stand-in elements (the real one runs in
// the browser test LinksInAnswersOpenInANewTab).
test("the link hook opens http(s) links in a new tab and drops other hrefs", () => {
  const element = (nodeName, attrs) => ({
    nodeName,
    attrs: { ...attrs },
    getAttribute(name) { return name in this.attrs ? this.attrs[name] : null; },
    setAttribute(name, value) { this.attrs[name] = value; },
    removeAttribute(name) { delete this.attrs[name]; },
  });
  const link = element("A", { href: "https://evil.example/raw" });
  secureLink(link);
  assert.deepEqual(link.attrs, { href: "https://evil.example/raw", target: "_blank", rel: "noopener noreferrer" });
  const script = element("A", { href: "javascript:alert(1)", target: "_self" });
  secureLink(script);
  assert.deepEqual(script.attrs, {});
  const anchor = element("A", { target: "_top" });
  secureLink(anchor);
  assert.deepEqual(anchor.attrs, {});
  const other = element("SPAN", { href: "https://x.example" });
  secureLink(other);
  assert.deepEqual(other.attrs, { href: "https://x.example" });
  secureLink(null);
});

test("a sanitizer, when given, sees the output", () => {
  assert.equal(renderMarkdown(md, "x", () => "clean"), "clean");
});

// Inputs that take these library versions super-linear time (markdown-it
// 8.4.2, highlight.js 9.18.5, the files the page serves), measured in Node
// 20 with md.render before the limits in markdown.js:
// - an unlabelled fenced block of "a " x 16000 (32 KB): 11.9 s, nearly all
//   in highlightAuto (every grammar runs; the C-like ones are quadratic on a
//   run of words);
// - the same block labelled cpp: 2.9 s (hljs.highlight("cpp"));
// - "*_" x 50000 (100 KB): 14.0 s; "[](" x 20000 (60 KB): 2.0 s. These are
//   markdown-it's own parser: no limit here makes them cheap, which is why
//   the page renders in a worker with a time budget (markdown_view.js;
//   tests/e2e/dashboard_browser, ASlowAnswerLeavesThePageResponsive).
const elapsed = (f) => {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
};
const words = (n) => "a ".repeat(n);

test("a large unlabelled code block is not auto-detected", () => {
  const { ms, value } = elapsed(() => renderMarkdown(md, "```\n" + words(16000) + "\n```\n"));
  assert.ok(ms < 1000, `${ms} ms`);
  assert.match(value, /^<pre><code>a a a/);
  assert.ok(!/hljs-/.test(value));
});

test("a code block over the highlighting limit stays uncoloured", () => {
  const code = words(MAX_HIGHLIGHT_CHARS / 2 + 1000);
  const { ms, value } = elapsed(() => renderMarkdown(md, "```cpp\n" + code + "\n```\n"));
  assert.ok(ms < 1000, `${ms} ms`);
  assert.match(value, /^<pre><code class="hljs language-cpp">a a a/);
  assert.ok(!/<span/.test(value));
  // Just under the limit it is highlighted.
  const small = renderMarkdown(md, "```cpp\nint x = 1;\n" + "// x\n".repeat(1000) + "```\n");
  assert.match(small, /<span class="hljs-keyword">int<\/span>/);
});

test("small unlabelled blocks are detected among a few languages only", () => {
  const html = renderMarkdown(md, '```\n{"name": "raw", "size": 3, "ok": true}\n```\n');
  assert.match(html, /hljs-/);
  assert.ok(AUTO_LANGUAGES.every((l) => hljs.getLanguage(l)), "every auto-detected language exists");
  // A label highlight.js does not know is taken as plain text.
  assert.ok(!/<span/.test(renderMarkdown(md, "```text\nint x = 1;\n```\n")));
  // Over the auto-detection limit: plain.
  const big = "```\n" + "int x = 1;\n".repeat(Math.ceil(MAX_AUTO_HIGHLIGHT_CHARS / 11) + 1) + "```\n";
  assert.ok(!/<span/.test(renderMarkdown(md, big)));
});

test("an unclosed fence while streaming renders as a code block", () => {
  const html = renderMarkdown(md, "Here:\n\n```python\nprint(1)\n");
  assert.match(html, /<pre><code class="hljs language-python">/);
});

test("the page's limits are the documented ones", () => {
  assert.equal(MAX_MARKDOWN_CHARS, 100_000);
  assert.equal(MAX_HIGHLIGHT_CHARS, 20_000);
  assert.equal(MAX_AUTO_HIGHLIGHT_CHARS, 4_000);
});
