// Element building without HTML strings: text always goes in as text nodes,
// so nothing a model, tool or file wrote can become markup. The only HTML the
// app inserts is sanitized Markdown (markdown_view.js).

// h("button", {class: "x", "aria-label": "Close", onclick: fn}, "text", child)
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "value") el.value = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// Announces `text` to screen readers through the page's live region.
export function announce(text) {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}

// Whether `el` takes typed text (a text field, a select, editable content).
export function inField(el) {
  return el instanceof HTMLElement && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}
