// @ts-check
// The sessions page (`#/`): every session, last active first, one page of the API at a
// time (so it costs the same at 100,000 sessions as at 10), filters that map onto the
// API's query, the search box, and a button for a new session. Keyboard: arrows move
// between rows, Enter opens, `n` new session, `/` search, Escape clears the search.

import { createSession, listSessions } from "./api.js";
import { ago, fill, h, toast } from "./dom.js";
import { sessionRow } from "./sessions-row.js";
import { createSearch } from "./sessions-search.js";

const PAGE = 50;
const REMEMBERED = "omni.sessions.view";

/** Filters and search as the person left them, so coming back from a session keeps them. */
function recall() {
  try {
    return { origin: "", model: "", archived: false, trash: false, query: "", ...JSON.parse(sessionStorage.getItem(REMEMBERED) ?? "{}") };
  } catch {
    return { origin: "", model: "", archived: false, trash: false, query: "" };
  }
}

function remember(view) {
  try {
    sessionStorage.setItem(REMEMBERED, JSON.stringify(view));
  } catch {
    // storage refused (private mode, quota): the page just forgets
  }
}

function isTextField(element) {
  if (!(element instanceof HTMLElement)) return false;
  if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
  return element instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit", "reset"].includes(element.type);
}

function filterControls(view, onChange) {
  const origin = h(
    "select",
    { id: "filter-origin", "aria-label": "Origin", onchange: () => onChange({ origin: origin.value }) },
    [["", "Any origin"], ["own", "Own"], ["proxy", "Proxy"], ["import", "Imported"]].map(([value, label]) =>
      h("option", { value, selected: value === view.origin }, label),
    ),
  );
  /** @type {number | undefined} */
  let typing;
  const model = h("input", {
    id: "filter-model",
    type: "text",
    value: view.model,
    placeholder: "Model contains…",
    "aria-label": "Model contains",
    autocomplete: "off",
    oninput: () => {
      clearTimeout(typing);
      typing = setTimeout(() => onChange({ model: model.value.trim() }), 250);
    },
  });
  const checkbox = (id, key, label) =>
    h(
      "label",
      { class: "check" },
      h("input", { id, type: "checkbox", checked: view[key], onchange: (event) => onChange({ [key]: event.target.checked }) }),
      label,
    );
  return h(
    "div",
    { class: "filters", role: "group", "aria-label": "Filters" },
    origin,
    model,
    checkbox("filter-archived", "archived", "Archived too"),
    checkbox("filter-trash", "trash", "Trash"),
  );
}

function shortcutsHelp() {
  const keys = [
    ["↑ ↓", "move between sessions"],
    ["Enter", "open the session"],
    ["n", "new session"],
    ["/", "search"],
    ["Esc", "clear the search"],
    ["?", "show these keys"],
  ];
  return h(
    "details",
    { id: "list-shortcuts", class: "shortcuts" },
    h("summary", {}, "Keyboard shortcuts ", h("kbd", {}, "?")),
    h("dl", {}, keys.map(([key, what]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, what)])),
  );
}

/** Shows the sessions page in `root`; returns the function that takes it down. */
export function mount(root) {
  const view = recall();
  /** @type {string | null} */
  let nextBefore = null;
  let generation = 0;

  const newButton = h("button", { id: "new-session", class: "primary", type: "button", onclick: newSession, title: "New session (n)" }, "New session");
  const search = createSearch(
    () => view,
    (text) => {
      view.query = text;
      remember(view);
    },
  );
  const list = h("div", { id: "session-list", "aria-label": "Sessions" });
  const status = h("div", { class: "list-status", "aria-live": "polite" });
  const more = h("div", { class: "more" });

  root.append(
    h(
      "section",
      { id: "sessions-page" },
      h("div", { class: "sessions-head" }, h("h1", {}, "Sessions"), search.form, newButton),
      search.results,
      filterControls(view, changeFilters),
      list,
      status,
      more,
      shortcutsHelp(),
    ),
  );

  async function newSession() {
    newButton.disabled = true;
    try {
      const created = await createSession();
      location.hash = `#/s/${encodeURIComponent(created.session)}`;
    } catch (error) {
      toast(`No new session: ${error.message}`, "error");
      newButton.disabled = false;
    }
  }

  function changeFilters(change) {
    Object.assign(view, change);
    remember(view);
    load();
  }

  function query(before) {
    return {
      limit: PAGE,
      before,
      origin: view.origin,
      model: view.model,
      archived: view.archived ? "true" : "",
      trash: view.trash ? "true" : "",
    };
  }

  /** Loads the first page (`append` false) or the next one, dropping any answer a newer load overtook. */
  async function load(append = false) {
    const mine = ++generation;
    fill(status, h("p", { class: "loading" }, append ? "Loading more…" : "Loading sessions…"));
    if (!append) more.replaceChildren();
    try {
      const page = await listSessions(query(append ? nextBefore : undefined));
      if (mine !== generation) return;
      status.replaceChildren();
      const rows = page.sessions.map(sessionRow);
      if (append) list.append(...rows);
      else list.replaceChildren(...rows);
      nextBefore = page.next_before;
      showMore();
      if (list.childElementCount === 0) showEmpty();
      if (append) rows[0]?.focus();
    } catch (error) {
      if (mine !== generation) return;
      fill(status, h("p", { class: "error" }, `The sessions could not be loaded: ${error.message} `, h("button", { type: "button", onclick: () => load(append) }, "Try again")));
    }
  }

  function showMore() {
    if (nextBefore === null || nextBefore === undefined) return more.replaceChildren();
    fill(more, h("button", { id: "more-sessions", type: "button", onclick: () => load(true) }, `More sessions (${PAGE} at a time)`));
  }

  function showEmpty() {
    const filtered = view.origin || view.model || view.archived;
    if (view.trash && !filtered) return fill(status, h("p", { class: "empty" }, "The trash is empty."));
    if (filtered || view.trash) {
      return fill(status, h("p", { class: "empty" }, "No sessions match these filters. ", h("button", { type: "button", onclick: clearFilters }, "Clear the filters")));
    }
    fill(
      status,
      h(
        "p",
        { class: "empty" },
        "No sessions yet: ",
        h("button", { type: "button", onclick: newSession }, "New session"),
        " (or press ",
        h("kbd", {}, "n"),
        "), or run ",
        h("code", {}, 'omnictl send "hello"'),
        " in a terminal.",
      ),
    );
  }

  function clearFilters() {
    Object.assign(view, { origin: "", model: "", archived: false, trash: false });
    remember(view);
    root.querySelector("#filter-origin").value = "";
    root.querySelector("#filter-model").value = "";
    root.querySelector("#filter-archived").checked = false;
    root.querySelector("#filter-trash").checked = false;
    load();
  }

  /** Moves the focus `step` links down (or up) through the search hits, then the rows. */
  function moveFocus(step) {
    const links = [...root.querySelectorAll("#search-results:not([hidden]) a.search-hit, #session-list a.session-row")];
    if (links.length === 0) return;
    const at = links.indexOf(document.activeElement);
    const next = at === -1 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + step));
    links[next].focus();
    links[next].scrollIntoView({ block: "nearest" });
  }

  function onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    const typing = isTextField(event.target);
    if (event.key === "Escape") {
      if (search.isOpen() || search.input.value) {
        event.preventDefault();
        const wasInResults = search.results.contains(document.activeElement);
        search.clear();
        if (wasInResults) search.input.focus();
      }
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (typing && event.target !== search.input) return;
      event.preventDefault();
      moveFocus(event.key === "ArrowDown" ? 1 : -1);
      return;
    }
    if (typing) return;
    if (event.key === "n") {
      event.preventDefault();
      newSession();
    } else if (event.key === "/") {
      event.preventDefault();
      search.input.focus();
      search.input.select();
    } else if (event.key === "?") {
      const help = root.querySelector("#list-shortcuts");
      help.open = !help.open;
    }
  }

  function refreshTimes() {
    for (const time of list.querySelectorAll("time.activity")) {
      time.textContent = ago(Date.parse(time.getAttribute("datetime") ?? ""));
    }
  }

  window.addEventListener("keydown", onKey);
  const clock = setInterval(refreshTimes, 30_000);
  load();
  if (view.query) {
    search.input.value = view.query;
    search.run();
  }

  return () => {
    generation++;
    clearInterval(clock);
    window.removeEventListener("keydown", onKey);
  };
}
