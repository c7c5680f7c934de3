// @ts-check
// The tree beside the transcript: the session's whole shape (`GET .../tree`) drawn by
// drawTree into `#tree svg`, the head marked; picking a node checks it out. The pane folds
// away (remembered per browser); on a narrow screen it starts folded. The shape is fetched
// again only when it may have changed in a way the transcript's new turns do not tell. The
// rows' texts are the transcript's where it shows the node, else fetched as rows come into
// view (tree-labels.js).

import { getTree } from "./api.js";
import { h } from "./dom.js";
import { TreeLabels } from "./tree-labels.js";
import { drawTree, relabelTree, unlabeledNodes } from "./tree.js";
import { nodeText } from "./tree-svg.js";

/** @typedef {import("./api-types.js").Entry} Entry */
/** @typedef {import("./api-types.js").TreeNode} TreeNode */

/**
 * A tree as the pane draws it: `GET .../tree`'s answer, or the last one grown in memory.
 * @typedef {{ head: number, nodes: TreeNode[] }} Shape
 */

const FOLDED_KEY = "omni.tree.folded";

/** The pane, its toggle button and its drawing. */
export class TreePane {
  /** `onCheckout(node)`: the user picked a node; `onShow()`: the pane unfolded (draw it). */
  constructor(sessionId, { onCheckout, onShow }) {
    this.sessionId = sessionId;
    this.onCheckout = onCheckout;
    this.onShow = onShow;
    /** @type {Shape | null} the tree as last drawn */
    this.shape = null;
    /** @type {(id: number) => Entry | null} the transcript's entry of a node it shows */
    this.known = () => null;
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.labels = new TreeLabels(sessionId, {
      waiting: () => unlabeledNodes(this.svg),
      onArrived: () => relabelTree(this.svg),
      shown: (id) => this.known(id) !== null,
      newest: () => this.shape?.nodes.at(-1)?.id ?? 0,
    });
    this.box = h("div", { id: "tree" }, this.svg);
    this.count = h("span", { class: "muted tree-count" }, "");
    this.element = h(
      "aside",
      { id: "tree-pane", "aria-label": "the session's tree" },
      h("h2", {}, "Tree ", this.count),
      this.box,
    );
    this.toggle = h(
      "button",
      {
        id: "tree-toggle",
        type: "button",
        "aria-controls": "tree-pane",
        title: "Show or hide the tree (Alt+T focuses it)",
        onclick: () => this.setFolded(!this.folded),
      },
      "Tree",
    );
    const stored = localStorage.getItem(FOLDED_KEY);
    this.setFolded(stored === null ? matchMedia("(max-width: 760px)").matches : stored === "1", false);
  }

  /** Folds or unfolds the pane; `remember` keeps the choice for the next visit. */
  setFolded(folded, remember = true) {
    this.folded = folded;
    this.element.hidden = folded;
    this.toggle.setAttribute("aria-expanded", String(!folded));
    if (remember) localStorage.setItem(FOLDED_KEY, folded ? "1" : "0");
    if (!folded && remember) this.onShow();
  }

  /** The session's tree, fetched. */
  fetch() {
    return getTree(this.sessionId);
  }

  /**
   * The shape last drawn grown by the nodes stored since, when nothing else changed: the
   * new nodes (`entryOf(id)` has each, none a summary) hang below the old head and the new
   * `head` is the old one or one of them. Then every older node keeps its place on or off
   * the path (and under the same summaries), and a new one is on the path exactly when it
   * leads to the head. Null when that cannot be told: the tree is to be fetched again.
   */
  grown(head, count, entryOf) {
    const old = this.shape;
    if (!old) return null; // nothing drawn yet: fetched whole
    const known = old.nodes.length;
    if (count < known || head > count) return null;
    const added = [];
    for (let id = known + 1; id <= count; id++) {
      const entry = entryOf(id);
      if (!entry || entry.compaction || entry.client_compaction || entry.compacted) return null;
      added.push(entry);
    }
    const onPath = new Set();
    let node = head;
    for (; node > known; node = entryOf(node).parent ?? 0) onPath.add(node);
    if (node !== old.head || added.some((entry) => entry.reverted === onPath.has(entry.id))) return null;
    const nodes = added.map(({ id, parent, role, reverted }) => ({ id, parent, role, reverted, compacted: false }));
    return { head, nodes: nodes.length ? old.nodes.concat(nodes) : old.nodes };
  }

  /**
   * Draws `tree` (as `GET .../tree` answers it). The tree has no texts: `known(id)` gives
   * the stored entry of a node the transcript shows, whose text labels its row; the other
   * rows' texts are fetched when they are drawn.
   * @param {Shape} tree
   * @param {(id: number) => Entry | null} [known]
   */
  draw(tree, known = () => null) {
    this.shape = { head: tree.head, nodes: tree.nodes };
    this.known = known;
    this.count.textContent = `${tree.nodes.length} nodes · head #${tree.head}`;
    drawTree(this.svg, tree.nodes, tree.head, {
      onCheckout: this.onCheckout,
      textOf: (id) => this.textOf(id),
      onUnlabeled: () => this.labels.want(),
    });
  }

  /** What labels node `id`'s row: the transcript's entry, else the text fetched for it. */
  textOf(id) {
    const entry = this.known(id);
    return entry ? nodeText(entry) : this.labels.get(id);
  }

  /** The view goes away: the texts on their way are no longer wanted. */
  close() {
    this.labels.close();
  }

  /** Moves the keyboard focus to the head's node (unfolding the pane). */
  async focus() {
    if (this.folded) {
      this.setFolded(false);
      await this.onShow();
    }
    const rows = this.svg.querySelectorAll("g[data-node]");
    const head = this.svg.querySelector("g.head") ?? rows[rows.length - 1];
    (/** @type {SVGElement | null} */ (head) ?? this.box).focus();
  }
}
