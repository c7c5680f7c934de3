// @ts-check
// Turns a model's markdown into inert DOM: the model's text never becomes live HTML.
//
// Three steps (the first two are each enough on their own to stop a `<script>`):
// 1. raw HTML written in the markdown is shown as text, never parsed as HTML;
// 2. what marked produces goes through DOMPurify with a strict allow-list (no script, style,
//    iframe, object, form or input elements, no event handlers, links only http:, https:
//    and mailto:, image sources only http:, https: or data:);
// 3. the sanitised tree is post-processed while it still belongs to DOMPurify's inert
//    document: links open in a new tab without an opener, and only data: images of a
//    raster type are kept; any other image becomes a link to it, so nothing is fetched
//    behind the user's back.
//    Code blocks whose fence names a language highlight.js knows are highlighted there
//    (classes only: no inline style, so the page's `style-src 'self'` holds).

import { Marked } from "../vendor/marked/marked.esm.js";
import DOMPurify from "../vendor/dompurify/purify.es.js";
import hljs from "../vendor/highlight/highlight.min.js";

/** Elements marked emits for the markdown we render (raw HTML is escaped, see below). */
const ALLOWED_TAGS = [
  "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
  "img", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead",
  "tr", "ul",
];

/** Attributes kept on those elements (URLs are checked against SAFE_URL). */
const ALLOWED_ATTR = ["alt", "align", "class", "href", "src", "start", "title"];

/** The only URLs a link or an image may point to. */
const SAFE_URL = /^(?:https?:|mailto:|data:image\/)/i;

/** Links the user may follow. */
const LINK_URL = /^(?:https?:|mailto:)/i;

/** Inline images shown as such: raster data only, nothing fetched. */
const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);/i;

/** Class names that may survive sanitising: a code block's language, a task's box. */
const SAFE_CLASS = /^(?:language-[\w+#.-]+|md-task)$/;

/** Largest code block highlighted: bigger ones are shown plain, to keep rendering quick. */
const HIGHLIGHT_LIMIT = 200_000;

/** Escapes text for the HTML string marked builds. */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A fenced block: its text escaped, its language (if highlight.js knows it) as a class.
 * @param {{ text: string, lang?: string }} token
 */
function renderCode({ text, lang }) {
  const language = ((lang || "").match(/^[\w+#.-]*/) ?? [""])[0].toLowerCase();
  const known = language !== "" && hljs.getLanguage(language) !== undefined;
  const tag = known ? ` class="language-${language}"` : "";
  return `<pre><code${tag}>${escapeHtml(text)}</code></pre>\n`;
}

/**
 * Highlights the sanitised code blocks in place. highlight.js escapes the code and only
 * adds `<span class>`; its output is parsed in an inert <template> and used only if that is
 * all it holds, else the block stays plain. Doing it after DOMPurify halves the time a
 * code-heavy answer takes (thousands of spans no longer go through the sanitiser).
 */
function highlightBlocks(root) {
  for (const code of root.querySelectorAll("pre > code")) {
    code.classList.add("hljs");
    const tag = [...code.classList].find((name) => name.startsWith("language-"));
    const language = tag ? tag.slice("language-".length) : "";
    const text = code.textContent;
    if (!hljs.getLanguage(language) || text.length > HIGHLIGHT_LIMIT) continue;
    const spans = onlySpans(hljs.highlight(text, { language, ignoreIllegals: true }).value, code);
    if (spans) code.replaceChildren(spans);
  }
}

/** The markup as nodes if it is nothing but text and spans with a class, else null. */
function onlySpans(html, near) {
  const template = near.ownerDocument.createElement("template");
  template.innerHTML = html; // a template's content is inert: it runs and loads nothing
  for (const element of template.content.querySelectorAll("*")) {
    const onlyClass = [...element.attributes].every((attribute) => attribute.name === "class");
    if (element.tagName !== "SPAN" || !onlyClass) return null;
  }
  return template.content;
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in the text is shown as written: a model explaining `<div>` is not eaten.
    html: ({ text }) => escapeHtml(text),
    code: renderCode,
    // Task lists as text: no form elements in the transcript.
    checkbox: ({ checked }) => `<span class="md-task">${checked ? "\u2611" : "\u2610"}</span> `,
  },
});

/** A private DOMPurify, so its hooks and settings never leak into other code. */
const purifier = DOMPurify(window);
purifier.addHook("uponSanitizeAttribute", (_node, data) => {
  if (data.attrName === "class") {
    data.attrValue = data.attrValue.split(/\s+/).filter((c) => SAFE_CLASS.test(c)).join(" ");
  }
});

const PURIFY_CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOWED_URI_REGEXP: SAFE_URL,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  RETURN_DOM_FRAGMENT: /** @type {true} */ (true),
};

/** Links open in a new tab, never handing the page to the site they open. */
function hardenLinks(root) {
  for (const a of root.querySelectorAll("a")) {
    const href = a.getAttribute("href");
    if (href !== null && !LINK_URL.test(href.trim())) a.removeAttribute("href");
    a.setAttribute("rel", "noopener noreferrer");
    a.setAttribute("target", "_blank");
  }
}

/** Keeps inline raster images; any other image becomes a link to it, never loaded. */
function replaceRemoteImages(root) {
  for (const img of root.querySelectorAll("img")) {
    const src = (img.getAttribute("src") || "").trim();
    if (INLINE_IMAGE.test(src)) continue;
    const doc = img.ownerDocument;
    const label = `[image: ${img.getAttribute("alt") || src || "?"}]`;
    const stand = doc.createElement(LINK_URL.test(src) ? "a" : "span");
    stand.className = "md-image";
    stand.textContent = label;
    if (stand.tagName === "A") {
      stand.setAttribute("href", src);
      stand.setAttribute("rel", "noopener noreferrer");
      stand.setAttribute("target", "_blank");
    }
    img.replaceWith(stand);
  }
}

/**
 * Renders a model's markdown as a DocumentFragment holding one `div.md`, safe to insert
 * anywhere: no element of it can run script, load a remote resource or style the page.
 */
export function renderMarkdown(text) {
  const source = typeof text === "string" ? text : "";
  let html;
  try {
    html = marked.parse(source);
  } catch {
    html = `<pre><code>${escapeHtml(source)}</code></pre>`; // the text stays readable
  }
  const inert = purifier.sanitize(html, PURIFY_CONFIG);
  hardenLinks(inert);
  replaceRemoteImages(inert);
  highlightBlocks(inert);
  const wrapper = inert.ownerDocument.createElement("div");
  wrapper.className = "md";
  wrapper.append(inert);
  const fragment = document.createDocumentFragment();
  fragment.append(document.importNode(wrapper, true));
  return fragment;
}

/** Renders text exactly as typed (a user's prompt): one text node, nothing parsed. */
export function renderPlain(text) {
  const fragment = document.createDocumentFragment();
  fragment.append(document.createTextNode(typeof text === "string" ? text : ""));
  return fragment;
}
