// Markdown from a model renders formatting but never markup of its own.
import test from "node:test";
import assert from "node:assert/strict";
import { markdownit, hljs } from "./load_vendor.mjs";
import { createMarkdown, isSafeUrl, renderMarkdown } from "../../clients/dashboard/web/assets/markdown.js";

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

test("a sanitizer, when given, sees the output", () => {
  assert.equal(renderMarkdown(md, "x", () => "clean"), "clean");
});
