// The images of a prompt: what the compose box lets in, and how a prompt's
// image shows in the conversation.
import test from "node:test";
import assert from "node:assert/strict";
import { MAX_IMAGE_BYTES, formatBytes, imageName, promptImageView, refusal, sniffImageType, toBase64 } from "../../clients/dashboard/web/assets/images.js";
import { Transcript } from "../../clients/dashboard/web/assets/transcript.js";

// A valid 1x1 PNG.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const bytesOf = (...values) => Uint8Array.from(values);

test("a PNG, JPEG, GIF or WebP shows as an image from a data: URL", () => {
  const view = promptImageView({ mimeType: "image/png", data: PNG_BASE64, width: 1, height: 1 });
  assert.equal(view.src, `data:image/png;base64,${PNG_BASE64}`);
  assert.equal(view.alt, "Image (PNG, 1×1)");
  assert.equal(view.text, undefined);
  assert.equal(promptImageView({ mimeType: "image/webp", data: "UklGRg==", width: 0, height: 0 }).alt, "Image (WEBP)");
});

test("an image of any other type, or with data that is not base64, shows as text only", () => {
  for (const image of [
    { mimeType: "image/svg+xml", data: "PHN2Zy8+", width: 10, height: 10 },
    { mimeType: "text/html", data: "PHNjcmlwdD4=" },
    { mimeType: "", data: PNG_BASE64 },
    { mimeType: "image/png", data: "abc\" onerror=\"alert(1)" },
    { mimeType: "image/png", data: "" },
    {},
  ]) {
    const view = promptImageView(image);
    assert.equal(view.src, undefined, JSON.stringify(image));
    assert.match(view.text, /: not shown$/);
  }
  assert.equal(promptImageView({ mimeType: "image/svg+xml", data: "PHN2Zy8+", width: 10, height: 10 }).text,
               "Image (SVG+XML, 10×10): not shown");
});

test("a user message keeps its images for the view, whatever their type", () => {
  const t = new Transcript();
  const [key] = t.apply({ seq: "1", turnId: "t1", userMessage: {
    images: [{ mimeType: "image/svg+xml", data: "PHN2Zy8+", width: "3", height: "2" },
             { mimeType: "image/png", data: PNG_BASE64, width: 1, height: 1 }],
  } });
  const item = t.byKey.get(key);
  assert.equal(item.kind, "user");
  assert.equal(item.text, "");
  assert.deepEqual(item.images.map((i) => [i.mimeType, i.width, i.height]), [["image/svg+xml", 3, 2], ["image/png", 1, 1]]);
  assert.equal(promptImageView(item.images[0]).src, undefined);
  assert.ok(promptImageView(item.images[1]).src.startsWith("data:image/png;base64,"));
});

test("an image's type is told by its bytes, as rawd tells it", () => {
  assert.equal(sniffImageType(Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0))), "image/png");
  assert.equal(sniffImageType(bytesOf(0xff, 0xd8, 0xff, 0xe0)), "image/jpeg");
  assert.equal(sniffImageType(new TextEncoder().encode("GIF89a......")), "image/gif");
  assert.equal(sniffImageType(new TextEncoder().encode("GIF87a......")), "image/gif");
  assert.equal(sniffImageType(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8X")), "image/webp");
  assert.equal(sniffImageType(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>")), "");
  assert.equal(sniffImageType(new TextEncoder().encode("RIFF\0\0\0\0WAVE")), "");
  assert.equal(sniffImageType(bytesOf()), "");
});

test("base64 of large images comes out whole", () => {
  const bytes = new Uint8Array(100000).map((_, i) => (i * 7) % 256);
  assert.equal(toBase64(bytes), Buffer.from(bytes).toString("base64"));
  assert.equal(toBase64(bytesOf()), "");
});

test("at most 10 images, 5 MiB each and 10 MiB together; an empty file is refused", () => {
  const one = { size: 1000 };
  assert.equal(refusal([], "a.png", 1000), "");
  assert.equal(refusal([], "a.png", MAX_IMAGE_BYTES), "");
  assert.equal(refusal([], "big.png", MAX_IMAGE_BYTES + 1), "big.png is 5.0 MB; an image may have at most 5.0 MB");
  assert.equal(refusal(Array(9).fill(one), "x.png", 1000), "");
  assert.equal(refusal(Array(10).fill(one), "x.png", 1000), "x.png: a prompt takes at most 10 images");
  assert.equal(refusal([], "empty.png", 0), "empty.png is empty");
  const half = { size: MAX_IMAGE_BYTES };
  assert.equal(refusal([half], "b.png", MAX_IMAGE_BYTES), "");
  assert.match(refusal([half, half], "c.png", 1), /^c\.png would make the images 10\.0 MB; a prompt takes at most 10\.0 MB of them$/);
  assert.equal(formatBytes(68), "68 bytes");
  assert.equal(formatBytes(12800), "12.5 KB");
});

test("an image keeps its file's name when rawd takes it, and goes without one otherwise", () => {
  assert.equal(imageName("screen shot.png"), "screen shot.png");
  assert.equal(imageName("écran.png"), "écran.png");
  assert.equal(imageName(""), undefined);
  assert.equal(imageName(undefined), undefined);
  assert.equal(imageName("a\nb.png"), undefined);
  assert.equal(imageName("tab\there.png"), undefined);
  assert.equal(imageName("a".repeat(1024)), "a".repeat(1024));
  assert.equal(imageName("é".repeat(513)), undefined);  // 1026 bytes of UTF-8
});
