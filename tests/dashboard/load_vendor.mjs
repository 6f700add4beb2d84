// Loads the vendor libraries the page uses (Debian's browser builds, from
// /usr/share/javascript or the copies the build makes) into Node, for the
// tests of the app's pure modules.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";

const require = createRequire(import.meta.url);

function first(paths) {
  for (const p of paths) if (existsSync(p)) return p;
  throw new Error(`none of ${paths.join(", ")} exists (apt-get install libjs-markdown-it libjs-highlight.js)`);
}

export const markdownit = require(first(["/usr/share/javascript/markdown-it/markdown-it.min.js",
                                          "/usr/share/javascript/markdown-it/markdown-it.js"]));
export const hljs = require(first(["/usr/share/javascript/highlight.js/highlight.min.js",
                                    "/usr/share/javascript/highlight.js/highlight.js"]));
