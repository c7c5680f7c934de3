// @ts-check
// The session's transcript, paged: the latest page first, earlier pages as the reader
// scrolls to the top (keeping what they look at in place), and the loaded range fetched
// again after every change so that reverted marks, new turns and the head stay true.
// Opened at a node (a search hit), it shows the turns around it instead, and later pages
// as the reader scrolls down, until it reaches the latest turns and follows them again.
// Entries are kept by node number; one is drawn again only when what can change changed.

import { getHistory } from "./api.js";
import { h } from "./dom.js";
import { entrySignature, renderEntry } from "./entry.js";
import { StreamingEntry } from "./streaming.js";
import { BranchFolds } from "./transcript-folds.js";

/** @typedef {import("./api-types.js").HistoryView} HistoryView */

/** Entries in a page: enough to fill a tall screen, small enough to open at once. */
const PAGE = 40;

/** The most entries one request may ask for (the API's limit). */
const MAX_PAGE = 1000;

/** Within this many pixels of the end counts as "reading the end": new turns follow. */
const NEAR_END = 80;

/** The transcript element (`#transcript`) and the entries it shows. */
export class Transcript {
  /** `onEdit(entry)`: a prompt on the path is to be edited. */
  constructor(sessionId, { onEdit }) {
    this.sessionId = sessionId;
    this.onEdit = onEdit;
    this.shown = new Map(); // node id -> { entry, element, signature }
    this.ids = []; // node ids shown, ascending
    this.earlier = null; // the `before` of the page before the oldest shown, or null
    this.later = false; // turns after the newest shown exist (opened at a node)
    this.loadingEarlier = false;
    this.loadingLater = false;
    this.opening = null; // opening at a node, until its turns are shown
    this.streaming = null;
    this.head = 0;
    this.folds = new BranchFolds(); // the turns on other branches, folded
    this.earlierButton = h(
      "button",
      { class: "earlier", type: "button", onclick: () => this.loadEarlier() },
      "Show earlier turns",
    );
    this.start = h("p", { class: "transcript-start muted" }, "the start of the session");
    this.top = h("div", { class: "transcript-top" }); // filled once the first page says what is above
    this.laterButton = h(
      "button",
      { class: "later", type: "button", onclick: () => this.loadLater() },
      "Show later turns",
    );
    this.bottom = h("div", { class: "transcript-bottom", hidden: true }, this.laterButton);
    this.element = h(
      "section",
      { id: "transcript", "aria-label": "transcript", tabindex: "0" }, // Tab, then arrows scroll it
      this.top,
      this.bottom,
    );
    this.observer = new IntersectionObserver((seen) => this.onTopSeen(seen), {
      root: this.element,
      rootMargin: "300px 0px 0px 0px",
    });
    this.laterObserver = new IntersectionObserver((seen) => this.onBottomSeen(seen), {
      root: this.element,
      rootMargin: "0px 0px 300px 0px",
    });
  }

  /** Stops watching the scroll (the view is going away). */
  close() {
    this.observer.disconnect();
    this.laterObserver.disconnect();
    this.streaming?.remove();
  }

  history(params) {
    return getHistory(this.sessionId, params);
  }

  /**
   * Fetches the latest turns again, as many as are shown (and any new ones), and draws what
   * changed; opened at a node, only the turns shown (the later ones come on scrolling).
   * Resolves with the newest page fetched (its `head`, `context`, `damaged`).
   */
  async refresh() {
    await this.opening;
    const oldest = this.ids.length ? this.ids[0] : Infinity;
    const newest = this.ids.length ? this.ids[this.ids.length - 1] : 0;
    const span = Number.isFinite(oldest) ? newest - oldest + 1 + PAGE : PAGE;
    let limit = Math.min(MAX_PAGE, Math.max(PAGE, span));
    let before = this.later ? newest + 1 : undefined;
    /** @type {HistoryView | null} */
    let latest = null;
    const entries = [];
    for (;;) {
      const page = await this.history({ limit, before });
      latest ??= page;
      entries.unshift(...page.entries);
      if (page.earlier == null || page.earlier <= oldest) {
        if (this.ids.length === 0) this.earlier = page.earlier;
        break;
      }
      before = page.earlier;
      limit = Math.min(MAX_PAGE, Math.max(PAGE, before - oldest));
    }
    latest = /** @type {HistoryView} */ (latest); // the loop ran at least once
    this.head = latest.head;
    // The first page reaches past the oldest turn shown; those earlier ones come on scrolling.
    const fresh = Number.isFinite(oldest) ? entries.filter((entry) => entry.id >= oldest) : entries;
    this.keepingPlace(() => this.reconcile(fresh));
    this.showEarlierControl();
    return latest;
  }

  /** Loads the page before the oldest turn shown, keeping the reader's place. */
  async loadEarlier() {
    if (this.loadingEarlier || this.earlier === null) return;
    this.loadingEarlier = true;
    this.earlierButton.disabled = true;
    try {
      const page = await this.history({ limit: PAGE, before: this.earlier });
      this.earlier = page.earlier;
      this.keepingPlace(() => this.reconcile(page.entries));
    } finally {
      this.loadingEarlier = false;
      this.earlierButton.disabled = false;
      this.showEarlierControl();
    }
    // A short page may leave the top in view: nothing would scroll to ask again.
    if (this.earlier !== null && this.element.scrollTop < 300) this.loadEarlier();
  }

  onTopSeen(seen) {
    if (seen.some((item) => item.isIntersecting)) this.loadEarlier();
  }

  showEarlierControl() {
    const wanted = this.earlier === null ? this.start : this.earlierButton;
    if (this.top.firstChild !== wanted) this.top.replaceChildren(wanted);
    this.observer.disconnect();
    if (this.earlier !== null) this.observer.observe(this.earlierButton);
  }

  /**
   * Shows the turns around node `node` instead of the latest ones (a search hit links
   * there). Resolves false, changing nothing, when the session has no such node (or it
   * could not be read). A refresh asked for meanwhile waits for it.
   */
  openAt(node) {
    this.opening = this.loadAround(node).catch(() => false);
    return this.opening;
  }

  async loadAround(node) {
    const half = PAGE / 2;
    const page = await this.history({ limit: PAGE, before: node + half + 1 });
    if (!page.entries.some((entry) => entry.id === node)) return false;
    this.head = page.head;
    this.earlier = page.earlier;
    this.later = page.entries[page.entries.length - 1].id >= node + half;
    this.reconcile(page.entries);
    this.showEarlierControl();
    this.showLaterControl();
    return true;
  }

  /** Loads the page after the newest turn shown (opened at a node), keeping the reader's place. */
  async loadLater() {
    if (this.loadingLater || !this.later) return;
    this.loadingLater = true;
    this.laterButton.disabled = true;
    try {
      const newest = this.ids[this.ids.length - 1];
      const page = await this.history({ limit: PAGE, before: newest + PAGE + 1 });
      const fresh = page.entries.filter((entry) => entry.id > newest);
      this.later = fresh.length === PAGE;
      const anchor = this.firstVisible();
      const offset = anchor ? anchor.offsetTop - this.element.scrollTop : 0;
      this.reconcile(fresh);
      if (anchor) this.element.scrollTop = anchor.offsetTop - offset;
    } finally {
      this.loadingLater = false;
      this.laterButton.disabled = false;
      this.showLaterControl();
    }
  }

  onBottomSeen(seen) {
    if (seen.some((item) => item.isIntersecting)) this.loadLater();
  }

  showLaterControl() {
    this.bottom.hidden = !this.later;
    this.laterObserver.disconnect();
    if (this.later) this.laterObserver.observe(this.laterButton);
  }

  /** Back to the latest turns (a prompt is sent): forgets a range opened at a node. */
  toLatest() {
    if (!this.later) return;
    for (const { element } of this.shown.values()) element.remove();
    this.shown.clear();
    this.ids = [];
    this.folds.update(this.ids, this.shown);
    this.earlier = null;
    this.later = false;
    this.showLaterControl();
  }

  /** Brings node `node` back into view (as little as needed) and the focus back to it. */
  refocus(node) {
    this.folds.open(node);
    const element = this.shown.get(node)?.element;
    element?.scrollIntoView({ block: "nearest" });
    element?.focus({ preventScroll: true });
  }

  /** Scrolls node `node` into view, marks it for a moment and gives it the focus. */
  reveal(node) {
    this.folds.open(node);
    const element = this.shown.get(node)?.element;
    if (!element) return;
    element.tabIndex = -1;
    element.scrollIntoView({ block: "center" });
    element.classList.remove("target");
    void element.offsetWidth; // restarts the mark's animation
    element.classList.add("target");
    element.addEventListener("animationend", () => element.classList.remove("target"), { once: true });
    element.focus({ preventScroll: true });
  }

  /** Draws entries new or changed since they were drawn, in node order. */
  reconcile(entries) {
    for (const entry of entries) {
      const editable = entry.role === "user" && !entry.reverted && !entry.compaction;
      const signature = entrySignature(entry, editable);
      const known = this.shown.get(entry.id);
      if (known && known.signature === signature) {
        known.entry = entry;
        continue;
      }
      const element = renderEntry(entry, { onEdit: editable ? this.onEdit : null });
      if (known) known.element.replaceWith(element);
      else this.insert(entry.id, element);
      this.shown.set(entry.id, { entry, element, signature });
    }
    for (const { entry, element } of this.shown.values()) {
      element.classList.toggle("head", entry.id === this.head);
    }
    this.folds.update(this.ids, this.shown);
  }

  insert(id, element) {
    let low = 0;
    let high = this.ids.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ids[middle] < id) low = middle + 1;
      else high = middle;
    }
    const next = low < this.ids.length ? this.shown.get(this.ids[low]).element : null;
    this.ids.splice(low, 0, id);
    if (next) next.before(element);
    else this.bottom.before(element);
  }

  /** Runs `change` and keeps the reader where they were: at the end, or on the same turn. */
  keepingPlace(change) {
    const box = this.element;
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < NEAR_END;
    const anchor = atEnd ? null : this.firstVisible();
    const offset = anchor ? anchor.offsetTop - box.scrollTop : 0;
    change();
    if (atEnd) box.scrollTop = box.scrollHeight;
    else if (anchor?.isConnected) box.scrollTop = anchor.offsetTop - offset;
  }

  firstVisible() {
    const top = this.element.scrollTop;
    for (const id of this.ids) {
      const { element } = this.shown.get(id);
      if (element.offsetTop + element.offsetHeight > top) return element;
    }
    return null;
  }

  /** Scrolls to the newest turn: the transcript follows what comes next (keepingPlace). */
  toEnd() {
    this.element.scrollTop = this.element.scrollHeight;
  }

  /** Starts showing an answer as it streams (after the prompt, at the end). */
  startStreaming(label) {
    if (this.streaming) return this.streaming;
    const streaming = new StreamingEntry(label, (draw) => this.keepingPlace(draw));
    this.streaming = streaming;
    this.keepingPlace(() => this.element.append(streaming.element));
    return streaming;
  }

  /** Adds a streamed piece while keeping the reader at the end if they were there. */
  growStreaming(apply) {
    if (!this.streaming) return;
    this.keepingPlace(() => apply(this.streaming));
  }

  /** The streaming answer is over: it goes (the stored one comes with the next refresh). */
  stopStreaming() {
    this.streaming?.remove();
    this.streaming = null;
  }

  /** The stored entry of node `id`, if it is shown. */
  entry(id) {
    return this.shown.get(id)?.entry ?? null;
  }

  /** The session's newest node when the transcript shows it (0: none yet), else null. */
  newest() {
    if (this.later) return null;
    return this.ids.length ? this.ids[this.ids.length - 1] : 0;
  }

  /** The latest prompt on the current path among those shown, or null. */
  lastPromptOnPath() {
    for (let i = this.ids.length - 1; i >= 0; i--) {
      const { entry } = this.shown.get(this.ids[i]);
      if (entry.role === "user" && !entry.reverted && !entry.compaction) return entry;
    }
    return null;
  }
}
