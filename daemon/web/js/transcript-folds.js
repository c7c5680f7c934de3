// @ts-check
// The turns on other branches, folded: after an edit forks an early prompt, everything
// after it on the old branch would stand between the reader and the new answer. Each run
// of entries reverted as `on another branch` (consecutive among those shown) is hidden
// behind one row, "N turns on other branches — show", a button that unfolds it (and folds
// it again). Turns undone or interrupted on the current branch are shown as they are.

import { h } from "./dom.js";

/** Whether an entry is out of the context because the head went to another branch. */
function otherBranch(entry) {
  return entry.reverted && entry.why_reverted === "other_branch";
}

function turns(n) {
  return n === 1 ? "1 turn" : `${n} turns`;
}

/** The fold rows of a transcript, kept in step with the entries it shows. */
export class BranchFolds {
  constructor() {
    this.unfolded = new Set(); // node ids of runs unfolded by hand
    this.folds = []; // { run: node ids, row: its element }
    this.ids = [];
    this.shown = new Map();
  }

  /**
   * Folds each run of other-branch entries among `ids` (ascending, as shown; `shown` maps
   * a node id to `{entry, element}`), unless it was unfolded, and puts its row before it.
   * A run keeps its row as it grows or shrinks (the button keeps the focus).
   */
  update(ids, shown) {
    this.ids = ids;
    this.shown = shown;
    const rowOf = new Map();
    for (const { run, row } of this.folds) for (const id of run) rowOf.set(id, row);
    const used = new Set();
    this.folds = runsOf(ids, shown).map((run) => {
      const open = run.some((id) => this.unfolded.has(id));
      for (const id of run) {
        if (open) this.unfolded.add(id);
        shown.get(id).element.hidden = !open;
      }
      const row = run.map((id) => rowOf.get(id)).find((r) => r && !used.has(r)) ?? this.row();
      used.add(row);
      describe(row.firstChild, run, open);
      const first = shown.get(run[0]).element;
      if (row.nextSibling !== first) first.before(row);
      return { run, row };
    });
    for (const row of new Set(rowOf.values())) if (!used.has(row)) row.remove();
  }

  /** A fold row: its button folds and unfolds the run it stands before. */
  row() {
    const row = h("div", { class: "branch-fold" });
    row.append(h("button", { type: "button", class: "fold-toggle", onclick: () => this.toggle(row) }));
    return row;
  }

  toggle(row) {
    const run = this.folds.find((fold) => fold.row === row)?.run ?? [];
    const open = !run.some((id) => this.unfolded.has(id));
    for (const id of run) {
      if (open) this.unfolded.add(id);
      else this.unfolded.delete(id);
    }
    this.update(this.ids, this.shown);
  }

  /** Unfolds the run that holds node `node`, if it is folded (a search hit goes there). */
  open(node) {
    const fold = this.folds.find(({ run }) => run.includes(node));
    if (!fold || this.unfolded.has(node)) return;
    for (const id of fold.run) this.unfolded.add(id);
    this.update(this.ids, this.shown);
  }
}

/** The runs of other-branch entries among `ids`, each a list of node ids. */
function runsOf(ids, shown) {
  /** @type {number[][]} */
  const runs = [];
  /** @type {number[] | null} */
  let run = null;
  for (const id of ids) {
    if (!otherBranch(shown.get(id).entry)) {
      run = null;
      continue;
    }
    if (!run) {
      run = [];
      runs.push(run);
    }
    run.push(id);
  }
  return runs;
}

/** Writes a fold row's button: how many turns, and whether they are shown. */
function describe(button, run, open) {
  const [first, last] = [run[0], run[run.length - 1]];
  const nodes = first === last ? `#${first}` : `#${first}–#${last}`;
  button.setAttribute("aria-expanded", String(open));
  button.textContent = `${turns(run.length)} on other branches — ${open ? "hide" : "show"}`;
  button.title = open ? "Fold these turns away again" : `Show ${nodes}: out of the context, on other branches`;
  button.parentElement.dataset.nodes = `${first}-${last}`;
}
