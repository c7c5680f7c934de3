// @ts-check
// Where each node of a session's tree goes in the graph: one row per node, one lane per
// branch, computed in one pass over the entries (O(n)) into typed arrays, so a
// 10,000-turn session (20,000 nodes) lays out in a few milliseconds.
//
// Row 0 is the empty start (node 0). Rows follow a depth-first walk in which a node's
// "continuing" child comes last and keeps its parent's lane, and every other child opens
// the next lane to the right, right below the node it forks from. On the path to the head
// the continuing child is the one on that path, so lane 0 is exactly what the model sees;
// elsewhere it is the newest child. With that order a lane's line never has to cross a
// node: at any row only the current node's ancestors have lines still open, all in lanes
// at or left of the node's own.

/**
 * The graph's layout. Every array is indexed by row; `entryOf[row]` is the index into
 * `entries` (-1 for the start row).
 * @typedef {object} TreeLayout
 * @property {number} rows how many rows (entries + the start)
 * @property {number} maxLane the rightmost lane used
 * @property {Int32Array} entryOf entry index per row, -1 for the start
 * @property {Int32Array} parentRow the parent's row, -1 for the start
 * @property {Int32Array} lane the lane of the row's node
 * @property {Uint8Array} onPath 1 when the node is on the path from the start to the head
 * @property {Int32Array} stemEnd the last row the node's own line runs down to (its own row
 *   when it has no children)
 * @property {Int32Array} firstChildRow the row of the first child drawn, -1 if none
 * @property {Int32Array} branch for a leaf off the head's path: its branch number (1, 2, ...
 *   in row order); 0 otherwise
 * @property {Int32Array} branchPrompts for such a leaf: the prompts since its branch forked
 * @property {Int32Array} branchNodes for such a leaf: the nodes since its branch forked
 * @property {(id: number) => number | undefined} rowOf a node's row (0 for the start)
 * @property {number} headRow the head's row (0 when the head is the start or unknown)
 */

/**
 * Lays out `entries` (HistoryView.entries, in creation order) around `head`.
 * A parent that is missing, or that comes after its child, is treated as the start, so
 * even damaged records give a tree and every entry gets a row.
 * @returns {TreeLayout}
 */
export function layoutTree(entries, head) {
  const n = entries.length;
  const size = n + 1; // slot 0 is the start, entry i is slot i + 1
  const slotOf = idIndex(entries);
  const parentSlot = new Int32Array(size);
  for (let i = 0; i < n; i++) {
    const entry = entries[i];
    const parent = entry.parent == null ? undefined : slotOf.get(entry.parent);
    parentSlot[i + 1] = parent === undefined ? 0 : parent;
    slotOf.set(entry.id, i + 1);
  }
  parentSlot[0] = -1;
  const headSlot = slotOf.get(head) ?? 0;
  const onPathSlot = markPath(parentSlot, headSlot);
  const children = linkChildren(parentSlot);
  const walk = walkDepthFirst(entries, parentSlot, onPathSlot, children);
  return Object.assign(toRows(walk, parentSlot, onPathSlot), {
    headRow: walk.rowOfSlot[headSlot],
    /** @param {number} id */
    rowOf: (id) => {
      if (id === 0) return 0;
      const slot = slotOf.get(id);
      return slot === undefined ? undefined : walk.rowOfSlot[slot];
    },
  });
}

/**
 * Node id to slot. Node ids count up from 1 within a session, so a typed array indexed by
 * id does (several times quicker than a Map at 20,000 nodes); a Map only for odd ids.
 */
function idIndex(entries) {
  let maxId = 0;
  for (const entry of entries) {
    if (!Number.isInteger(entry.id) || entry.id < 0) return new Map();
    if (entry.id > maxId) maxId = entry.id;
  }
  if (maxId > entries.length * 4 + 64) return new Map();
  const slots = new Int32Array(maxId + 1).fill(-1);
  return {
    get: (id) => (id >= 0 && id <= maxId && slots[id] !== -1 ? slots[id] : undefined),
    set: (id, slot) => {
      slots[id] = slot;
    },
  };
}

/** The slots on the path from the start to `headSlot`. */
function markPath(parentSlot, headSlot) {
  const onPath = new Uint8Array(parentSlot.length);
  for (let slot = headSlot; slot >= 0; slot = parentSlot[slot]) onPath[slot] = 1;
  return onPath;
}

/** Children as linked lists, newest first (each child is put in front of its siblings). */
function linkChildren(parentSlot) {
  const size = parentSlot.length;
  const first = new Int32Array(size).fill(-1);
  const next = new Int32Array(size).fill(-1);
  for (let slot = 1; slot < size; slot++) {
    const parent = parentSlot[slot];
    next[slot] = first[parent];
    first[parent] = slot;
  }
  return { first, next };
}

/** The child that keeps its parent's lane: on the head's path, or else the newest; -1 if none. */
function continuingChild(slot, onPathSlot, children) {
  const newest = children.first[slot];
  if (!onPathSlot[slot]) return newest;
  for (let child = newest; child !== -1; child = children.next[child]) {
    if (onPathSlot[child]) return child;
  }
  return -1; // the head: all its children are branches
}

/**
 * The depth-first walk (an explicit stack: a 20,000-node chain must not recurse). Pushing
 * the continuing child first and then the others newest first pops the others oldest first
 * and the continuing child last.
 */
function walkDepthFirst(entries, parentSlot, onPathSlot, children) {
  const size = parentSlot.length;
  const rowOfSlot = new Int32Array(size);
  const slotOfRow = new Int32Array(size);
  const lane = new Int32Array(size);
  const prompts = new Int32Array(size); // prompts from the start down to the slot
  const depth = new Int32Array(size);
  const forkPrompts = new Int32Array(size); // the same counts where the slot's branch forked
  const forkDepth = new Int32Array(size);
  const stack = new Int32Array(size);
  let top = 0;
  let row = 0;
  stack[top++] = 0;
  while (top > 0) {
    const slot = stack[--top];
    rowOfSlot[slot] = row;
    slotOfRow[row++] = slot;
    const keep = continuingChild(slot, onPathSlot, children);
    if (keep !== -1) stack[top++] = keep;
    for (let child = children.first[slot]; child !== -1; child = children.next[child]) {
      if (child !== keep) stack[top++] = child;
    }
    for (let child = children.first[slot]; child !== -1; child = children.next[child]) {
      const isUser = entries[child - 1].role === "user" ? 1 : 0;
      prompts[child] = prompts[slot] + isUser;
      depth[child] = depth[slot] + 1;
      lane[child] = child === keep ? lane[slot] : lane[slot] + 1;
      forkPrompts[child] = child === keep ? forkPrompts[slot] : prompts[slot];
      forkDepth[child] = child === keep ? forkDepth[slot] : depth[slot];
    }
  }
  return { rowOfSlot, slotOfRow, lane, prompts, depth, forkPrompts, forkDepth, children };
}

/** Turns the walk's per-slot numbers into the per-row arrays the renderer reads. */
function toRows(walk, parentSlot, onPathSlot) {
  const rows = parentSlot.length;
  const layout = {
    rows,
    maxLane: 0,
    entryOf: new Int32Array(rows),
    parentRow: new Int32Array(rows),
    lane: new Int32Array(rows),
    onPath: new Uint8Array(rows),
    stemEnd: new Int32Array(rows),
    firstChildRow: new Int32Array(rows).fill(-1),
    branch: new Int32Array(rows),
    branchPrompts: new Int32Array(rows),
    branchNodes: new Int32Array(rows),
  };
  let branches = 0;
  for (let row = 0; row < rows; row++) {
    const slot = walk.slotOfRow[row];
    const parent = parentSlot[slot];
    layout.entryOf[row] = slot - 1;
    layout.parentRow[row] = parent === -1 ? -1 : walk.rowOfSlot[parent];
    layout.lane[row] = walk.lane[slot];
    layout.onPath[row] = onPathSlot[slot];
    layout.stemEnd[row] = row;
    if (walk.lane[slot] > layout.maxLane) layout.maxLane = walk.lane[slot];
    if (parent !== -1) extendStem(layout, layout.parentRow[row], row);
    const leaf = walk.children.first[slot] === -1;
    if (leaf && !onPathSlot[slot] && slot !== 0) {
      layout.branch[row] = ++branches;
      layout.branchPrompts[row] = walk.prompts[slot] - walk.forkPrompts[slot];
      layout.branchNodes[row] = walk.depth[slot] - walk.forkDepth[slot];
    }
  }
  return layout;
}

/**
 * A child at `row` lengthens its parent's line: down to the child itself when it shares
 * the lane, else down to the row above it, where the child's own curve leaves the line.
 */
function extendStem(layout, parentRow, row) {
  if (layout.firstChildRow[parentRow] === -1) layout.firstChildRow[parentRow] = row;
  const sameLane = layout.lane[row] === layout.lane[parentRow];
  const end = sameLane ? row : row - 1;
  if (end > layout.stemEnd[parentRow]) layout.stemEnd[parentRow] = end;
}
