// Images of a prompt: what the compose box lets in (rawd's rules: PNG, JPEG,
// GIF and WebP, told by their bytes; at most 10 per prompt, 5 MiB each,
// 10 MiB together) and how a prompt's image is shown. Pure.

// The types rawd lets into a prompt (never SVG, which can carry script).
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const MAX_IMAGES = 10;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_TOTAL_IMAGE_BYTES = 10 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// "812 bytes", "12.5 KB", "5.0 MB" (binary units, as rawd counts).
export function formatBytes(n) {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

// The image type of `bytes` (a Uint8Array) by its signature, as rawd tells
// it (common/image_sniff.cc); "" for anything else.
export function sniffImageType(bytes) {
  const at = (i, ...values) => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (at(4, 0x37, 0x61) || at(4, 0x39, 0x61))) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return "";
}

// Standard base64 of `bytes` (a Uint8Array), in pieces so that a 5 MiB image
// does not overflow the argument list.
export function toBase64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

// Why a file of `size` bytes named `name` cannot join the `attached` images
// ({size}), or "" when it can. Its type is checked once its bytes are read.
export function refusal(attached, name, size) {
  if (attached.length >= MAX_IMAGES) return `${name}: a prompt takes at most ${MAX_IMAGES} images`;
  if (size === 0) return `${name} is empty`;
  if (size > MAX_IMAGE_BYTES) {
    return `${name} is ${formatBytes(size)}; an image may have at most ${formatBytes(MAX_IMAGE_BYTES)}`;
  }
  const total = attached.reduce((sum, a) => sum + a.size, 0) + size;
  if (total > MAX_TOTAL_IMAGE_BYTES) {
    return `${name} would make the images ${formatBytes(total)}; a prompt takes at most ${formatBytes(MAX_TOTAL_IMAGE_BYTES)} of them`;
  }
  return "";
}

// A file's name as rawd takes it for an image (at most 1024 bytes of
// UTF-8, no control characters), or undefined: the name is optional, so one
// it would refuse is left out rather than refusing the prompt.
export function imageName(name) {
  const text = String(name ?? '');
  if (text === '' || /[\u0000-\u001f\u007f]/.test(text)) return undefined;
  return new TextEncoder().encode(text).length <= 1024 ? text : undefined;
}

// How a prompt's image ({mimeType, data (base64), width, height}) shows:
// {src, alt} for an <img> from a data: URL (the page's policy allows data:
// images and nothing else from outside), only for the four types and data
// that is base64; otherwise {text} saying it is not shown.
export function promptImageView(image) {
  const mimeType = String(image?.mimeType ?? "");
  const data = String(image?.data ?? "");
  const type = mimeType.replace(/^image\//, "").toUpperCase() || "unknown type";
  const size = image?.width > 0 && image?.height > 0 ? `, ${image.width}×${image.height}` : "";
  const label = `Image (${type}${size})`;
  if (!IMAGE_TYPES.includes(mimeType) || data === "" || !BASE64.test(data)) return { text: `${label}: not shown` };
  return { src: `data:${mimeType};base64,${data}`, alt: label };
}
