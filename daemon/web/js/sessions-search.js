// @ts-check
// The search box of the sessions page: `GET /v1/search?q=` over every session and branch,
// its hits shown with the session's title, who wrote the text, whether it is reverted, and
// the snippet with the matches marked. Enter searches, Escape clears.

import { search } from "./api.js";
import { ago, fill, h, localTime } from "./dom.js";
import { revertReason } from "./words.js";

/** @typedef {import("./api-types.js").Highlight} Highlight */
/** @typedef {import("./api-types.js").SearchHit} SearchHit */
/** @typedef {import("./api-types.js").SearchResults} SearchResults */

const HIT_LIMIT = 50;

function utf8Length(codePoint) {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * The JS string index of byte `byteOffset` of `text`'s UTF-8 encoding (the daemon gives
 * highlights as byte ranges). An offset inside a character moves to that character's end,
 * so a mark never splits one.
 */
export function stringIndexOfByte(text, byteOffset) {
  let bytes = 0;
  let index = 0;
  for (const char of text) {
    if (bytes >= byteOffset) return index;
    bytes += utf8Length(char.codePointAt(0));
    index += char.length;
  }
  return text.length;
}

/**
 * The snippet as text nodes with each highlighted byte range in a `<mark>`.
 * @param {string} snippet
 * @param {Highlight[]} [highlights]
 */
export function markedSnippet(snippet, highlights = []) {
  const ranges = highlights
    .map(({ start, end }) => [stringIndexOfByte(snippet, start), stringIndexOfByte(snippet, end)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const pieces = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (end <= at) continue; // overlaps what is already marked
    const from = Math.max(start, at);
    if (from > at) pieces.push(snippet.slice(at, from));
    pieces.push(h("mark", {}, snippet.slice(from, end)));
    at = end;
  }
  if (at < snippet.length) pieces.push(snippet.slice(at));
  return pieces;
}

/** @param {SearchHit} hit */
function searchHit(hit) {
  const why = hit.why_reverted ? revertReason(hit.why_reverted) ?? hit.why_reverted : "off the path";
  return h(
    "a",
    {
      class: ["search-hit", hit.reverted && "reverted"],
      href: `#/s/${encodeURIComponent(hit.session)}/${hit.node}`,
      dataset: { session: hit.session, node: hit.node },
    },
    h(
      "span",
      { class: "hit-head" },
      h("span", { class: "hit-title" }, hit.title || "untitled"),
      h("span", { class: ["badge", "hit-role", hit.role] }, hit.role),
      hit.reverted && h("span", { class: "reverted-mark" }, `[ REVERTED ] ${why}`),
      h("time", { class: "hit-time", title: localTime(hit.created_at_ms) }, `node ${hit.node} · ${ago(hit.created_at_ms)}`),
    ),
    h("span", { class: "snippet" }, markedSnippet(hit.snippet, hit.highlights)),
  );
}

/**
 * @param {string} query
 * @param {SearchResults} answer
 */
function summaryLine(query, answer) {
  const count = answer.hits.length;
  const found =
    count === 0
      ? `Nothing matches “${query}”.`
      : `${count === HIT_LIMIT ? `The best ${count}` : count} ${count === 1 ? "hit" : "hits"} for “${query}”, best first.`;
  return h(
    "p",
    { class: "search-summary" },
    found,
    !answer.complete && h("span", { class: "warn" }, " The index is still being built: some hits may be missing."),
  );
}

/**
 * The search form and its results panel. `options()` gives the filters the list has that
 * search also takes (archived); `onQuery(text)` hears each search and each clear ("").
 * Returns the elements to place, `run()` (search for what the field holds) and `clear()`.
 */
export function createSearch(options, onQuery) {
  const input = h("input", {
    id: "search",
    type: "search",
    placeholder: "Search every session…",
    "aria-label": "Search every session (Enter)",
    autocomplete: "off",
    enterkeyhint: "search",
    oninput: () => {
      if (input.value === "") clear(); // the field's own clear button
    },
  });
  const results = h("section", { id: "search-results", hidden: true, "aria-live": "polite" });
  let generation = 0;

  function clear() {
    generation++;
    input.value = "";
    onQuery("");
    results.hidden = true;
    results.replaceChildren();
  }

  async function run() {
    const query = input.value.trim();
    if (!query) return clear();
    const mine = ++generation;
    onQuery(query);
    results.hidden = false;
    fill(results, h("p", { class: "loading" }, `Searching for “${query}”…`));
    try {
      const answer = await search({ q: query, limit: HIT_LIMIT, archived: options().archived ? "true" : "" });
      if (mine !== generation) return;
      fill(
        results,
        h("div", { class: "search-bar" }, summaryLine(query, answer), h("button", { type: "button", class: "clear-search", onclick: clear }, "Clear ", h("kbd", {}, "Esc"))),
        answer.hits.length > 0 && h("div", { class: "hits" }, answer.hits.map(searchHit)),
      );
    } catch (error) {
      if (mine !== generation) return;
      fill(results, h("p", { class: "error" }, `The search failed: ${error.message}`));
    }
  }

  const form = h(
    "form",
    {
      class: "search-form",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        run();
      },
    },
    input,
  );
  return { form, input, results, run, clear, isOpen: () => !results.hidden };
}
