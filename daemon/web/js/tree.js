// @ts-check
// The session's whole tree as a graph in an <svg>: one row per node, one lane per branch,
// the head marked, reverted nodes dimmed, branch tips labelled. Clicking a node (or Enter
// or Space on it) checks it out through the caller's `onCheckout`; arrow keys move the focus.
//
// Big trees stay quick: the layout is one O(n) pass (tree-layout.js) and only the rows in
// view of the svg's scroll container (plus a margin) exist in the DOM; scrolling swaps rows
// in and out once per animation frame. A row whose node has no text yet can get it from the
// caller later (`textOf`, `onUnlabeled`, `relabelTree`): labels come without a redraw.

import { layoutTree } from "./tree-layout.js";
import { GEOMETRY, buildEdges, buildRow, graphSize, nodeText, rowY, svgElement } from "./tree-svg.js";

/** Trees up to this many rows are drawn whole: no row ever goes missing from the DOM. */
const DRAW_ALL_UP_TO = 300;

/** Rows drawn beyond each edge of the view, so quick scrolling shows no gap. */
const OVERSCAN = 20;

/** The drawing state of each svg drawn into (drawTree may be called again and again). */
const states = new WeakMap();

/**
 * Draws `entries` (HistoryView.entries, in creation order) into `svg`, with `head` (0 = the
 * empty start) marked; `onCheckout(nodeId)` is called when the user picks a node. Call it
 * again whenever the entries or the head change: it keeps the focus on the node that had it
 * and, when the svg sits in a scrolling box of its own, scrolls a moved head into view.
 * Entries without `text` or `parts` are labelled by `textOf(id)` (a `nodeText`), or, when
 * it has none yet, shown as waiting, and `onUnlabeled()` is called whenever such rows are
 * drawn (`unlabeledNodes` lists them, `relabelTree` labels them once their texts came).
 * @param {SVGSVGElement} svg
 * @param {any[]} entries
 * @param {number} head
 * @param {{ onCheckout?: (node: number) => void, textOf?: (id: number) => string | undefined, onUnlabeled?: () => void }} [options]
 */
export function drawTree(svg, entries, head, { onCheckout, textOf, onUnlabeled } = {}) {
  if (!Array.isArray(entries)) entries = [];
  let state = states.get(svg);
  if (!state) {
    state = createState(svg);
    states.set(svg, state);
  }
  const focused = focusedNode(svg);
  const headMoved = state.head !== head || state.firstCreated !== entries[0]?.created_at_ms;
  state.entries = entries;
  state.head = head;
  state.firstCreated = entries[0]?.created_at_ms; // another session, same head id
  state.onCheckout = onCheckout;
  state.textOf = textOf;
  state.onUnlabeled = onUnlabeled;
  if (headMoved) state.tabRow = -1; // the tab stop goes to the new head
  state.layout = layoutTree(entries, head);
  watchScrolling(state);
  fitToWidth(state);
  clearRows(state);
  if (headMoved && state.container !== window) scrollRowIntoView(state, state.layout.headRow);
  render(state);
  const focusedRow = focused === null ? undefined : state.layout.rowOf(focused);
  if (state.rendered.has(focusedRow)) state.rendered.get(focusedRow).focus({ preventScroll: true });
  state.schedule(true); // once more after layout settles (the svg may just be being attached)
}

/** Sets the svg up once: its two layers and the listeners that read the current state. */
function createState(svg) {
  svg.replaceChildren();
  svg.classList.add("omni-tree");
  if (!svg.hasAttribute("aria-label")) {
    svg.setAttribute("aria-label", "the conversation's tree: pick a node to continue from it");
  }
  const edges = svgElement("g", { class: "edges" });
  const rows = svgElement("g", { class: "rows" });
  svg.append(edges, rows);
  const state = { svg, edges, rows, rendered: new Map(), first: 0, last: -1, frame: 0 };
  state.unlabeled = new Set(); // drawn rows whose text is on its way
  state.container = null;
  state.onScroll = () => state.schedule(false);
  state.resizeObserver = new ResizeObserver(() => {
    state.resized = true;
    state.schedule(false);
  });
  state.schedule = (recheckContainer) => {
    state.recheck = state.recheck || recheckContainer;
    if (state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = 0;
      if (state.recheck) watchScrolling(state);
      state.recheck = false;
      render(state);
    });
  };
  // The row last moved to: the tree's tab stop. (No focus listener on the svg: one would
  // make Chromium put the svg itself in the tab order.)
  state.tabRow = -1;
  state.tabStop = null;
  svg.addEventListener("click", (event) => onClick(state, event));
  svg.addEventListener("keydown", (event) => onKey(state, event));
  return state;
}

/** The node id of the row that has the focus, or null. */
function focusedNode(svg) {
  const active = document.activeElement;
  if (!active || !svg.contains(active) || !active.hasAttribute("data-node")) return null;
  return Number(active.getAttribute("data-node"));
}

/** The nearest ancestor that scrolls vertically, or the window. */
function findScrollContainer(svg) {
  for (let element = svg.parentElement; element; element = element.parentElement) {
    if (element === document.body || element === document.documentElement) break;
    const overflow = getComputedStyle(element).overflowY;
    if (overflow === "auto" || overflow === "scroll" || overflow === "overlay") return element;
  }
  return window;
}

/** Listens to the scroll container's scrolling and resizing (moving to a new one if it changed). */
function watchScrolling(state) {
  const container = findScrollContainer(state.svg);
  if (container === state.container) return;
  if (state.container) state.container.removeEventListener("scroll", state.onScroll);
  if (state.container === window) window.removeEventListener("resize", state.onScroll);
  state.resizeObserver.disconnect();
  state.container = container;
  container.addEventListener("scroll", state.onScroll, { passive: true });
  if (container === window) window.addEventListener("resize", state.onScroll);
  state.resizeObserver.observe(container === window ? document.documentElement : container);
}

/** The part of the viewport the container shows, as client y coordinates. */
function viewBounds(state) {
  if (state.container === window) return { top: 0, bottom: window.innerHeight };
  const box = state.container.getBoundingClientRect();
  return { top: box.top, bottom: box.bottom };
}

/** The rows to draw: all of a small tree, else those in view plus the margin. */
function wantedRows(state, mustInclude) {
  const rows = state.layout.rows;
  if (rows <= DRAW_ALL_UP_TO) return [0, rows - 1];
  const { top, bottom } = viewBounds(state);
  const svgTop = state.svg.getBoundingClientRect().top + GEOMETRY.padding;
  let first = Math.floor((top - svgTop) / GEOMETRY.rowHeight) - OVERSCAN;
  let last = Math.ceil((bottom - svgTop) / GEOMETRY.rowHeight) + OVERSCAN;
  if (mustInclude !== undefined && (mustInclude < first || mustInclude > last)) {
    first = mustInclude - OVERSCAN;
    last = mustInclude + OVERSCAN;
  }
  first = Math.max(0, Math.min(first, rows - 1));
  last = Math.max(first, Math.min(last, rows - 1));
  return [first, last];
}

/** The width the graph fills: its scroll box's, without the box's padding and scrollbar. */
function boxWidth(state) {
  const box = state.container === window ? state.svg.parentElement : state.container;
  if (!box) return 0;
  const style = getComputedStyle(box); // empty while detached
  return box.clientWidth - (parseFloat(style.paddingLeft) || 0) - (parseFloat(style.paddingRight) || 0);
}

/**
 * Sizes the svg to its box (labels are cut to fit it); true when the width changed, so rows
 * drawn for the old width are to be drawn again.
 */
function fitToWidth(state) {
  const { height } = graphSize(state.layout);
  state.svg.setAttribute("height", height); // first: it decides whether a scrollbar takes room
  const { width } = graphSize(state.layout, boxWidth(state));
  const family = getComputedStyle(state.svg).fontFamily || "sans-serif";
  const changed = width !== state.width || family !== state.family;
  state.width = width;
  state.family = family;
  state.svg.setAttribute("width", width);
  return changed;
}

/** After the box was resized: the rows again, cut to the new width, the focus kept. */
function refit(state) {
  state.resized = false;
  if (!fitToWidth(state)) return;
  const focused = focusedNode(state.svg);
  clearRows(state);
  const [first, last] = wantedRows(state);
  state.rows.append(buildRows(state, first, last));
  state.first = first;
  state.last = last;
  state.edges.replaceChildren(buildEdges(state.layout, first, last));
  moveTabStop(state);
  const row = focused === null ? undefined : state.layout.rowOf(focused);
  if (state.rendered.has(row)) state.rendered.get(row).focus({ preventScroll: true });
  if (state.unlabeled.size > 0) state.onUnlabeled?.();
}

/** Removes every drawn row (the layout changed). */
function clearRows(state) {
  state.rows.replaceChildren();
  state.rendered.clear();
  state.unlabeled.clear();
  state.tabStop = null;
  state.first = 0;
  state.last = -1;
}

/** Draws the rows wanted now, keeping those already drawn, and the lines between them. */
function render(state, mustInclude) {
  if (state.resized) refit(state);
  const [first, last] = wantedRows(state, mustInclude);
  if (first === state.first && last === state.last) return;
  const keepFrom = Math.max(first, state.first);
  const keepTo = Math.min(last, state.last);
  if (keepFrom > keepTo) {
    clearRows(state);
    state.rows.append(buildRows(state, first, last));
  } else {
    removeRows(state, state.first, keepFrom - 1);
    removeRows(state, keepTo + 1, state.last);
    state.rows.prepend(buildRows(state, first, keepFrom - 1));
    state.rows.append(buildRows(state, keepTo + 1, last));
  }
  state.first = first;
  state.last = last;
  state.edges.replaceChildren(buildEdges(state.layout, first, last));
  moveTabStop(state);
  if (state.unlabeled.size > 0) state.onUnlabeled?.();
}

/**
 * Makes `row` the tree's one tab stop (Tab enters the tree there, arrows move within it),
 * or, when it is not drawn, the head's row or the first drawn.
 */
function moveTabStop(state, row) {
  if (row !== undefined) state.tabRow = row;
  const rendered = state.rendered;
  const stop =
    rendered.get(state.tabRow) ?? rendered.get(state.layout.headRow) ?? rendered.get(state.first) ?? null;
  if (stop === state.tabStop) return;
  state.tabStop?.setAttribute("tabindex", "-1");
  stop?.setAttribute("tabindex", "0");
  state.tabStop = stop;
}

/** The entry of a row's node (null for the start) and what is known of its text (null: on its way). */
function rowEntry(state, row) {
  const index = state.layout.entryOf[row];
  if (index < 0) return { entry: null, known: null };
  const entry = state.entries[index];
  const hasOwn = entry.text !== undefined || entry.parts !== undefined;
  const known = hasOwn || !state.textOf ? nodeText(entry) : (state.textOf(entry.id) ?? null);
  return { entry, known };
}

/** Row `row`'s group, built, counted as unlabeled while its text is on its way. */
function buildOneRow(state, row, fit) {
  const { entry, known } = rowEntry(state, row);
  if (entry && !known) state.unlabeled.add(row);
  else state.unlabeled.delete(row);
  return buildRow(state.layout, entry, known, row, state.head, fit);
}

/** Rows from..to as a fragment, remembered as drawn. */
function buildRows(state, from, to) {
  const fragment = document.createDocumentFragment();
  const fit = { width: state.width, family: state.family };
  for (let row = from; row <= to; row++) {
    const group = buildOneRow(state, row, fit);
    state.rendered.set(row, group);
    fragment.append(group);
  }
  return fragment;
}

/** The ids of the nodes drawn without their text, in row order. */
export function unlabeledNodes(svg) {
  const state = states.get(svg);
  if (!state) return [];
  const rows = [...state.unlabeled].sort((a, b) => a - b);
  return rows.map((row) => state.entries[state.layout.entryOf[row]].id);
}

/**
 * Labels the drawn rows whose texts `textOf` now has, in place: each row's group stays (its
 * focus, tab stop and position too), only its content and classes change.
 */
export function relabelTree(svg) {
  const state = states.get(svg);
  if (!state || !state.textOf) return;
  const fit = { width: state.width, family: state.family };
  for (const row of [...state.unlabeled]) {
    const { entry } = rowEntry(state, row);
    if (!state.textOf(entry.id)) continue;
    const group = state.rendered.get(row);
    const fresh = buildOneRow(state, row, fit);
    group.setAttribute("class", fresh.getAttribute("class"));
    group.replaceChildren(...fresh.childNodes);
  }
}

/** Takes rows from..to out of the DOM. */
function removeRows(state, from, to) {
  for (let row = from; row <= to; row++) {
    const group = state.rendered.get(row);
    if (group) group.remove();
    state.rendered.delete(row);
    state.unlabeled.delete(row);
  }
}

/** Scrolls the container just enough to show `row` with two rows of margin. */
function scrollRowIntoView(state, row) {
  const { top, bottom } = viewBounds(state);
  if (bottom <= top) return;
  const y = state.svg.getBoundingClientRect().top + rowY(row);
  const margin = GEOMETRY.rowHeight * 2;
  let delta = 0;
  if (y - margin < top) delta = y - margin - top;
  else if (y + margin > bottom) delta = y + margin - bottom;
  if (delta === 0) return;
  if (state.container === window) window.scrollBy(0, delta);
  else state.container.scrollTop += delta;
}

/** Moves the focus to `row`, scrolling it into view and drawing it first. */
function focusRow(state, row) {
  const target = Math.max(0, Math.min(row, state.layout.rows - 1));
  scrollRowIntoView(state, target);
  render(state, target);
  moveTabStop(state, target);
  const group = state.rendered.get(target);
  if (group) group.focus({ preventScroll: true }); // scrolled above, in the container only
}

/** The row and node of the group an event happened in, or null. */
function eventRow(state, event) {
  const group = event.target.closest ? event.target.closest("g[data-row]") : null;
  if (!group || !state.svg.contains(group)) return null;
  return {
    row: Number(group.getAttribute("data-row")),
    node: Number(group.getAttribute("data-node")),
  };
}

/** A click anywhere on a row checks its node out. */
function onClick(state, event) {
  const hit = eventRow(state, event);
  if (hit) moveTabStop(state, hit.row);
  if (hit && state.onCheckout) state.onCheckout(hit.node);
}

/** Enter/Space check out; arrows, Page Up/Down, Home and End move between nodes. */
function onKey(state, event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const hit = eventRow(state, event);
  if (!hit) return;
  const { layout } = state;
  const { top, bottom } = viewBounds(state);
  const page = Math.max(1, Math.floor((bottom - top) / GEOMETRY.rowHeight) - 2);
  const moves = {
    ArrowDown: hit.row + 1,
    ArrowUp: hit.row - 1,
    PageDown: hit.row + page,
    PageUp: hit.row - page,
    Home: 0,
    End: layout.rows - 1,
    ArrowLeft: layout.parentRow[hit.row] >= 0 ? layout.parentRow[hit.row] : hit.row,
    ArrowRight: layout.firstChildRow[hit.row] >= 0 ? layout.firstChildRow[hit.row] : hit.row,
  };
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (state.onCheckout) state.onCheckout(hit.node);
  } else if (event.key in moves) {
    event.preventDefault();
    focusRow(state, moves[event.key]);
  }
}
