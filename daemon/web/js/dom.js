// @ts-check
// Small helpers for building the page's DOM without ever parsing HTML: text always goes in
// as text nodes, so nothing a model or another client wrote can become markup.

/**
 * An element: `h("button", { class: "primary", onclick: f }, "Send")`. Attributes whose
 * name starts with "on" become listeners, `dataset` an object of data-* values; children
 * are nodes or strings (added as text), and null/false children are skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attributes]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      for (const [key, data] of Object.entries(value)) element.dataset[key] = String(data);
    } else if (name === "class") {
      element.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (value === true) {
      element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Empties `element` and puts `children` in it.
 * @template {Element} E
 * @param {E} element
 * @param {...any} children
 * @returns {E}
 */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** "3 min ago", "yesterday", or a date: when something happened, at a glance. */
export function ago(ms, now = Date.now()) {
  if (!ms) return "never";
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return days === 1 ? "yesterday" : `${days} days ago`;
  return localTime(ms).slice(0, 10);
}

/** A time as "YYYY-MM-DD HH:MM" in local time (by hand: no locale formatter to set up). */
export function localTime(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** 1234567 as "1,234,567". */
export function thousands(n) {
  return String(Math.round(n ?? 0)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Shows a short message at the bottom of the page for a few seconds. */
export function toast(message, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  const item = h("div", { class: ["toast", kind] }, message);
  box.append(item);
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 4000);
}
