// @ts-check
// The SVG elements of the tree graph: one group per row and the lines between rows, built
// with createElementNS and textContent only (a node's text never becomes markup).

import { revertReason } from "./words.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Geometry shared by the renderer and the scrolling code, in CSS pixels. */
export const GEOMETRY = Object.freeze({
  rowHeight: 24,
  laneWidth: 16,
  padding: 12,
  minLabelWidth: 120,
  labelChars: 100,
});

/** How much of a node's text its tooltip shows. */
const TOOLTIP_CHARS = 400;

/** An SVG element with its attributes set. */
export function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/** The x of a lane's line. */
export function laneX(lane) {
  return GEOMETRY.padding + lane * GEOMETRY.laneWidth;
}

/** The y of a row's centre. */
export function rowY(row) {
  return GEOMETRY.padding + row * GEOMETRY.rowHeight + GEOMETRY.rowHeight / 2;
}

/**
 * The graph's full size, so the scroll container can scroll over rows not yet drawn: as
 * wide as `fitWidth` (the box it sits in), wider only when the lanes leave no room for labels.
 */
export function graphSize(layout, fitWidth = 0) {
  const lanes = laneX(layout.maxLane) + GEOMETRY.laneWidth;
  return {
    width: Math.max(lanes + GEOMETRY.minLabelWidth, Math.floor(fitWidth)),
    height: GEOMETRY.padding * 2 + layout.rows * GEOMETRY.rowHeight,
  };
}

/** @type {CanvasRenderingContext2D | undefined} */
let measureContext;

/** The canvas context that measures label text in `font` (made on first use). */
function measurer(font) {
  measureContext ??= /** @type {CanvasRenderingContext2D} */ (document.createElement("canvas").getContext("2d"));
  measureContext.font = font;
  return measureContext;
}

/**
 * `text` cut with an ellipsis to fit `room` pixels in `font` (a CSS font shorthand), measured
 * on a canvas: no layout, a few measurements per label.
 */
function fitText(text, room, font) {
  const context = measurer(font);
  const width = (chars) => context.measureText(chars).width;
  if (width(text) <= room) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (width(`${text.slice(0, mid).trimEnd()}\u2026`) <= room) low = mid;
    else high = mid - 1;
  }
  return low > 0 ? `${text.slice(0, low).trimEnd()}\u2026` : "";
}

/** The start of a text as one line, with the commonest markdown marks taken out. */
function firstWords(text) {
  return text
    .slice(0, GEOMETRY.labelChars * 4)
    .replace(/\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, "$1")
    .replace(/^\s{0,3}(?:#{1,6}|>|[-+*]|\d+\.)\s+/gm, "")
    .replace(/\*\*|__|`+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * What a row shows of a node's stored entry, and all it keeps of it (small, so thousands
 * can be kept): the label's words (or the calls the node makes), the start of the text for
 * the tooltip, when, which model, how many nodes a summary covers, and the revert state
 * it was read with.
 */
export function nodeText(entry) {
  const text = entry.text || "";
  return {
    words: copied(firstWords(text).slice(0, GEOMETRY.labelChars) || callNames(entry)),
    preview: copied(text.slice(0, TOOLTIP_CHARS)),
    created_at_ms: entry.created_at_ms ?? null,
    model: entry.model?.model ?? null,
    covers: entry.compaction ? entry.compaction.covers.length : null,
    reverted: Boolean(entry.reverted),
    why_reverted: entry.why_reverted ?? null,
  };
}

/**
 * A string of its own: a slice of a long text may keep the whole text in memory (V8 shares
 * it), which a label kept long after the page it came with must not.
 */
function copied(part) {
  return part.length > 12 ? structuredClone(part) : part;
}

/**
 * "model: first words of the answer…": the role and the start of the text; "…" alone while
 * the text is on its way (`known` null), "(no text)" when the node has none.
 */
function shortLabel(entry, known) {
  if (!known) return `${entry.role}: \u2026`;
  const role = entry.role === "summary" && known.covers !== null ? `summary of ${known.covers}` : entry.role;
  return `${role}: ${known.words || "(no text)"}`;
}

/** "calls search, fetch" or "results of search": what a node without text holds. */
function callNames(entry) {
  const calls = [];
  const results = [];
  for (const part of (entry.parts || []).slice(0, 20)) {
    const content = part && part.content;
    if (content && content.function_call) calls.push(content.function_call.name);
    if (content && content.function_response) results.push(content.function_response.name);
  }
  if (calls.length > 0) return `calls ${calls.join(", ")}`;
  if (results.length > 0) return `results of ${results.join(", ")}`;
  return "";
}

/** "2026-11-25 06:09" in local time (cheap: no Intl formatter to set up on first draw). */
function localTime(ms) {
  const date = new Date(ms);
  const two = (number) => String(number).padStart(2, "0");
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/**
 * The tooltip: number, role, time, state, and more of the text. The reason of a revert is
 * the entry's own, else the one `known` was read with while the node is still as reverted.
 */
function tooltip(entry, known, reverted) {
  const facts = [`#${entry.id} ${entry.role}`];
  if (known?.created_at_ms) facts.push(localTime(known.created_at_ms));
  if (reverted) {
    const stillSo = known && known.reverted === Boolean(entry.reverted);
    const why = entry.why_reverted ?? (stillSo ? known.why_reverted : null);
    facts.push(`reverted (${revertReason(why) || "off the head's path"})`);
  }
  if (entry.compacted) facts.push("compacted");
  if (known?.model) facts.push(known.model);
  return `${facts.join(" \u00b7 ")}\n${known ? known.preview : ""}`;
}

/** "branch 3 · 2 turns": what a leaf off the head's path is labelled with. */
function branchText(layout, row) {
  const prompts = layout.branchPrompts[row];
  const count = prompts > 0 ? prompts : layout.branchNodes[row];
  const unit = prompts > 0 ? "turn" : "answer";
  return `branch ${layout.branch[row]} \u00b7 ${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** The classes of a row's group, per the page's DOM contract (`pending`: its text is on its way). */
function rowClasses(layout, row, entry, known, head) {
  const classes = [entry ? "node" : "start"];
  if (row === layout.headRow && (entry ? entry.id === head : head === 0)) classes.push("head");
  if (!entry) return classes.join(" ");
  if (!layout.onPath[row]) classes.push("reverted");
  else classes.push("on-path");
  if (entry.role === "summary") classes.push("summary");
  if (entry.compacted) classes.push("compacted");
  if (!known) classes.push("pending");
  return classes.join(" ");
}

/** The CSS font of a row's label, as tree.css styles it (head bold, summary and start italic). */
function labelFont(classes, family) {
  const style = /\b(summary|start)\b/.test(classes) ? "italic " : "";
  const weight = /\bhead\b/.test(classes) ? "600 " : "";
  return `${style}${weight}12px ${family}`;
}

/**
 * One row: a hit area, the node's circle, its label and, on a branch tip, the branch label,
 * the texts cut to end inside `width` (the full text is in the row's tooltip). `entry`: the
 * row's node (null for the start); `known`: its `nodeText`, null while on its way.
 * `family`: the svg's font family, for measuring.
 */
export function buildRow(layout, entry, known, row, head, { width, family }) {
  const x = laneX(layout.lane[row]);
  const y = rowY(row);
  const classes = rowClasses(layout, row, entry, known, head);
  const group = svgElement("g", {
    class: classes,
    "data-node": entry ? entry.id : 0,
    "data-row": row,
    tabindex: -1, // one row is the tree's single tab stop (tree.js moves it)
    role: "button",
  });
  if (entry) group.setAttribute("data-role", entry.role);
  const title = svgElement("title");
  title.textContent = entry
    ? tooltip(entry, known, !layout.onPath[row])
    : "the start: check out to begin again";
  group.append(title);
  const top = y - GEOMETRY.rowHeight / 2;
  const height = GEOMETRY.rowHeight;
  group.append(svgElement("rect", { class: "hit", x: 0, y: top, width, height }));
  group.append(svgElement("circle", { cx: x, cy: y, r: entry ? 5 : 4 }));
  const textX = x + GEOMETRY.laneWidth;
  let room = width - textX - GEOMETRY.padding / 2;
  const text = svgElement("text", { x: textX, y, "dominant-baseline": "central" });
  const gap = 8;
  if (layout.branch[row] > 0) {
    // First, so a narrow pane still shows which branch this is.
    const branch = svgElement("tspan", { class: "branch-label" });
    const font = `600 11px ${family}`;
    branch.textContent = fitText(branchText(layout, row), room, font);
    room -= measurer(font).measureText(branch.textContent).width + gap;
    text.append(branch);
  }
  const label = svgElement("tspan", { class: "label", dx: layout.branch[row] > 0 ? gap : 0 });
  label.textContent = room > 0 ? fitText(entry ? shortLabel(entry, known) : "start", room, labelFont(classes, family)) : "";
  text.append(label);
  group.append(text);
  return group;
}

/** The line from a node down its lane, when it is visible in rows first..last. */
function stemPath(layout, row, first, last) {
  const end = layout.stemEnd[row];
  if (end <= row || end < first || row > last) return null;
  const x = laneX(layout.lane[row]);
  const keepsPath = layout.onPath[row] && layout.onPath[end];
  return svgElement("path", {
    class: keepsPath ? "edge on-path" : "edge reverted",
    d: `M${x} ${rowY(Math.max(row, first - 1))}V${rowY(Math.min(end, last + 1))}`,
  });
}

/** The curve into a child that opens a lane, leaving its parent's line on the row above. */
function forkPath(layout, row) {
  const parent = layout.parentRow[row];
  if (parent < 0 || layout.lane[row] === layout.lane[parent]) return null;
  const x1 = laneX(layout.lane[parent]);
  const x2 = laneX(layout.lane[row]);
  const y1 = rowY(row - 1);
  const y2 = rowY(row);
  const bend = GEOMETRY.rowHeight / 2;
  return svgElement("path", {
    class: layout.onPath[row] ? "edge on-path" : "edge reverted",
    d: `M${x1} ${y1}C${x1} ${y1 + bend} ${x2} ${y2 - bend} ${x2} ${y2}`,
  });
}

/**
 * Every line that shows in rows first..last. Lines that pass through the window start
 * above it, so every row's stem is checked: a comparison per row, no DOM work for rows
 * outside the window.
 */
export function buildEdges(layout, first, last) {
  const fragment = document.createDocumentFragment();
  for (let row = 0; row <= last + 1 && row < layout.rows; row++) {
    const stem = layout.stemEnd[row] > row ? stemPath(layout, row, first, last) : null;
    if (stem) fragment.append(stem);
    if (row >= first && row <= last + 1) {
      const fork = forkPath(layout, row);
      if (fork) fragment.append(fork);
    }
  }
  return fragment;
}
