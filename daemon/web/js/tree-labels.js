// @ts-check
// The texts of the tree's rows that the transcript does not show. `GET .../tree` gives the
// shape only, so the texts of the rows in view are fetched as they come into view: once the
// scrolling pauses (or slows down so that rows stay in view a while), one page of history
// (`?limit=N&before=B`, read from an index: its cost follows the page) around the rows
// still waiting, one request at a time. What came is kept per view, the most recently used
// last, up to a bound.

import { getHistory } from "./api.js";
import { nodeText } from "./tree-svg.js";

/** Texts kept: a `nodeText` takes under a kilobyte (measured), so a few megabytes at most. */
const KEEP = 5000;

/** The pause in the scrolling after which the waiting rows' texts are fetched. */
const QUIET_MS = 100;

/** While the scrolling goes on: rows waiting this long (still in view) are fetched anyway. */
const PATIENCE_MS = 300;

/** Nodes asked for at least (the rows in view and some beyond) and at most (the API's page). */
const PAGE_MIN = 240;
const PAGE_MAX = 1000;

/** Node texts fetched on demand for one session view. */
export class TreeLabels {
  /**
   * `waiting()`: the ids of the nodes drawn without a text, now; `onArrived()`: texts came
   * (label the rows waiting for them); `shown(id)`: the node's text is at hand elsewhere;
   * `newest()`: the newest node's id.
   */
  constructor(sessionId, { waiting, onArrived, shown, newest }) {
    this.sessionId = sessionId;
    this.waiting = waiting;
    this.onArrived = onArrived;
    this.shown = shown;
    this.newest = newest;
    this.known = new Map(); // id -> nodeText, the least recently used first
    this.timer = 0;
    this.patience = 0; // the timer of the check on rows waiting while the scrolling goes on
    this.waitedFor = new Set(); // the ids waiting when that check was set
    this.inFlight = null; // the AbortController of the request on its way
    this.closed = false;
  }

  /** A node's `nodeText` if it came, else undefined. */
  get(id) {
    const known = this.known.get(id);
    if (known) {
      this.known.delete(id); // used: to the back of the line
      this.known.set(id, known);
    }
    return known;
  }

  /**
   * Rows wait for their texts: fetch them once the scrolling has paused, or, while it goes
   * on, when some of them have been waiting in view for PATIENCE_MS (calls coalesce).
   */
  want() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetchWaiting(), QUIET_MS);
    if (!this.patience) this.waitSome();
  }

  /** Notes the rows waiting now and checks on them after PATIENCE_MS. */
  waitSome() {
    this.waitedFor = new Set(this.waiting());
    this.patience = setTimeout(() => {
      this.patience = 0;
      const stayed = this.waiting().some((id) => this.waitedFor.has(id));
      if (stayed) this.fetchWaiting();
      else if (this.waitedFor.size > 0) this.waitSome(); // flown past: look again
    }, PATIENCE_MS);
  }

  /** Fetches one page around the nodes waiting now, unless a request is on its way already. */
  async fetchWaiting() {
    if (this.inFlight || this.closed) return;
    const ids = this.waiting().filter((id) => !this.has(id));
    if (ids.length === 0) return;
    const [from, to] = this.pageAround(ids);
    const abort = new AbortController();
    this.inFlight = abort;
    try {
      const params = { limit: to - from + 1, before: to + 1 };
      const page = await getHistory(this.sessionId, params, { signal: abort.signal });
      this.keep(page.entries, ids, from, to);
    } catch {
      return; // aborted, or the daemon is away: the rows still drawn ask again on the next scroll
    } finally {
      if (this.inFlight === abort) this.inFlight = null;
    }
    this.onArrived();
    this.want(); // the view may have moved on while the page came
  }

  /** Whether node `id`'s text is here (fetched or shown elsewhere). */
  has(id) {
    return this.known.has(id) || this.shown(id);
  }

  /**
   * The node ids to ask for, as [from, to]: those waiting (the newest thousand when they
   * spread wider: the rest come next), widened on both sides up to PAGE_MIN for the rows a
   * scroll shows next, over nodes that exist and whose texts are not here yet.
   */
  pageAround(ids) {
    let to = Math.max(...ids);
    let from = Math.max(Math.min(...ids), to - PAGE_MAX + 1);
    const newest = this.newest();
    for (let grew = true; grew && to - from + 1 < PAGE_MIN; ) {
      const down = from > 1 && !this.has(from - 1);
      const up = to < newest && !this.has(to + 1);
      if (down) from--;
      if (up) to++;
      grew = down || up;
    }
    return [from, to];
  }

  /** Keeps the texts of a page; a waiting node the page lacks is kept as having none. */
  keep(entries, ids, from, to) {
    for (const entry of entries) this.remember(entry.id, nodeText(entry));
    for (const id of ids) {
      if (id >= from && id <= to && !this.known.has(id)) this.remember(id, nodeText({}));
    }
  }

  remember(id, known) {
    this.known.delete(id);
    this.known.set(id, known);
    if (this.known.size > KEEP) this.known.delete(this.known.keys().next().value);
  }

  /** The view goes away: no more requests, the one on its way aborted. */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.patience);
    this.inFlight?.abort();
  }
}
