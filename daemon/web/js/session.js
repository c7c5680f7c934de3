// @ts-check
// The session view (`#/s/ID`): the header, the transcript with the tree beside it, the
// notices of answers on their way, and the composer. This module holds the view's state
// (the summary, the head, whether an answer is streaming) and loads it again after every
// change; the parts it puts together each do one job (header.js, transcript.js,
// tree-pane.js, activity.js, composer.js, actions.js, live.js, shortcuts.js).

import { ApiError, getHistory, getSession } from "./api.js";
import { fill, h } from "./dom.js";
import { makeActions } from "./actions.js";
import { Activity } from "./activity.js";
import { Composer } from "./composer.js";
import { Header } from "./header.js";
import { followSession } from "./live.js";
import { openRecovery } from "./recovery.js";
import { installShortcuts } from "./shortcuts.js";
import { mountToolResults } from "./tool-results.js";
import { Transcript } from "./transcript.js";
import { TreePane } from "./tree-pane.js";

/** @typedef {import("./api-types.js").SessionSummary} SessionSummary */

/** Runs `task` now, or once more after the run in progress: calls never overlap. */
function coalesced(task) {
  /** @type {Promise<void> | null} */
  let running = null;
  let again = false;
  return () => {
    again = true;
    running ??= (async () => {
      while (again) {
        again = false;
        await task();
      }
      running = null;
    })();
    return running;
  };
}

/**
 * Marks, once per page, the moment something was first shown: `omni:transcript-shown` and
 * `omni:tree-shown` (performance marks, as DevTools shows them; the web bench reads them).
 */
function markFirst(view, name) {
  if (view.marked.has(name)) return;
  view.marked.add(name);
  performance.mark(name, { detail: view.id });
}

/** One session's page and its state. */
class SessionView {
  constructor(root, id) {
    this.id = id;
    /** @type {SessionSummary | null} */
    this.summary = null;
    this.headEntry = null;
    this.streamingNow = false; // an answer streams (seen on the events)
    this.ownCount = 0; // this page's own requests in flight
    this.editing = null; // { node, parent } while a prompt is being edited
    this.recoveryOpen = null; // { abort, since } while the recovery dialog is open
    this.recoveryWasNeeded = false;
    this.loads = 0; // loads started, so that a dialog is closed only by a load begun after it
    this.toolKey = null;
    this.unmountTools = null;
    this.marked = new Set();
    this.actions = makeActions(this);
    this.activity = new Activity();
    this.transcript = new Transcript(id, { onEdit: (entry) => this.actions.edit(entry) });
    this.tree = new TreePane(id, {
      onCheckout: (node) => this.actions.checkout(node),
      onShow: () => this.reloadTree(),
    });
    this.header = new Header(id, { onRenamed: (summary) => this.showSummary(summary), treeToggle: this.tree.toggle });
    this.composer = new Composer({ ...this.actions, recover: () => this.recover(null) });
    this.reloadTree = coalesced(() => this.drawTree());
    this.reloadState = coalesced(() => this.load());
    this.stateLoaded = null;
    this.element = h(
      "div",
      { id: "session-view" },
      this.header.element,
      h(
        "div",
        { class: "session-body" },
        h("div", { class: "session-main" }, this.transcript.element, this.activity.element, this.composer.element),
        this.tree.element,
      ),
    );
    fill(root, this.element);
  }

  /** Loads the summary, the transcript and the tree again (calls coalesce). */
  reload() {
    this.stateLoaded = this.reloadState();
    this.reloadTree();
    return this.stateLoaded;
  }

  async load() {
    const started = ++this.loads;
    try {
      const [summary, page] = await Promise.all([getSession(this.id), this.transcript.refresh()]);
      this.headEntry = page.head ? (this.transcript.entry(page.head) ?? (await this.fetchEntry(page.head))) : null;
      this.showSummary(summary);
      this.checkToolCalls();
      this.checkRecovery(started);
      markFirst(this, "omni:transcript-shown");
    } catch (error) {
      this.loadFailed(error);
    }
  }

  /**
   * Draws the tree with the texts the transcript knows: the shape drawn before, grown by
   * the turns stored since when that is all that changed, else fetched again (at first
   * while the transcript loads).
   */
  async drawTree() {
    if (this.tree.folded) return; // drawn when it unfolds
    try {
      const fetched = this.tree.shape ? null : this.tree.fetch();
      await this.stateLoaded;
      const entry = (id) => this.transcript.entry(id);
      const newest = this.transcript.newest();
      const grown = fetched || newest === null ? null : this.tree.grown(this.transcript.head, newest, entry);
      this.tree.draw(grown ?? (await (fetched ?? this.tree.fetch())), entry);
      markFirst(this, "omni:tree-shown");
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) this.activity.add("warn", `The tree could not be loaded: ${error.message}`);
    }
  }

  /**
   * One stored entry (the head, when it is not among the turns shown).
   * @param {number} node
   */
  async fetchEntry(node) {
    const page = await getHistory(this.id, { limit: 1, before: node + 1 });
    return page.entries.find((entry) => entry.id === node) ?? null;
  }

  loadFailed(error) {
    if (error instanceof ApiError && error.status === 401) return; // the app shows the login
    if (error instanceof ApiError && error.status === 404 && !this.summary) {
      const message = h("p", { class: "error" }, `No such session: ${this.id}. `, h("a", { href: "#/" }, "All sessions"));
      fill(this.element, h("div", { class: "notice-page" }, message));
      return;
    }
    this.activity.add("warn", `Could not load the session: ${error.message}`);
  }

  /**
   * Shows a summary (from a load, a rename, a model switch).
   * @param {SessionSummary} summary
   */
  showSummary(summary) {
    this.summary = summary;
    this.header.showSummary(summary);
    this.updateState();
  }

  answering() {
    return this.streamingNow || this.ownCount > 0;
  }

  ownSending() {
    return this.ownCount > 0;
  }

  /** This page's own request started (+1) or ended (-1). */
  ownAnswer(delta) {
    this.ownCount += delta;
    this.updateState();
  }

  /** An answer started or stopped streaming (from the events). */
  setStreaming(streaming) {
    this.streamingNow = streaming;
    this.updateState();
  }

  setEditing(editing) {
    this.editing = editing;
    if (editing) this.composer.showEdit(editing.node, editing.parent);
    else this.composer.hideEdit();
  }

  /** The prompt at the head that waits for an answer, or null. */
  pendingPrompt() {
    return !this.answering() && this.headEntry?.role === "user" ? this.headEntry : null;
  }

  unansweredCalls() {
    return (this.summary?.pending_calls ?? []).filter((call) => !call.answered);
  }

  /** The state in words and which buttons make sense now. */
  updateState() {
    const summary = this.summary;
    if (!summary) return;
    const answering = this.answering();
    const pending = this.pendingPrompt();
    const [text, kind] = summary.damaged
      ? ["damaged", "attention"]
      : answering
        ? ["answering", "busy"]
        : summary.needs_recovery
          ? ["needs recovery", "attention"]
          : summary.suspended
            ? ["suspended", "attention"]
            : this.unansweredCalls().length
              ? ["waiting for tool results", "attention"]
              : pending
                ? ["pending prompt", "attention"]
                : ["idle", "idle"];
    this.header.showState(text, kind);
    const free = !answering && !summary.damaged;
    this.composer.update({
      send: free,
      stop: answering,
      undo: free && this.headEntry !== null && this.headEntry.role !== "user",
      back: !summary.damaged && summary.head > 0, // while answering: stops, then back
      redo: free && summary.can_redo,
      retry: free && (pending !== null || Boolean(summary.needs_recovery)),
      resume: summary.suspended,
      compact: free && summary.head > 0,
      "recover-button": Boolean(summary.needs_recovery) && !answering,
    });
    this.composer.showPending(pending, Boolean(summary.needs_recovery));
  }

  /** Shows the form for function results when the answer at the head waits for them. */
  checkToolCalls() {
    const waiting = this.answering() ? [] : this.unansweredCalls();
    const key = waiting.length ? `${this.summary?.head}:${waiting.map((call) => `${call.name}/${call.id}`).join(",")}` : null;
    if (key === this.toolKey) return;
    this.toolKey = key;
    this.unmountTools?.();
    this.unmountTools = null;
    if (waiting.length === 0) return;
    this.unmountTools = mountToolResults(this.composer.toolSlot, this.id, this.summary?.pending_calls ?? [], {
      onEvent: () => {}, // the session's events draw the continuation
      onDone: () => this.reload(),
      onError: (error) => {
        if (error.kind === "needs_recovery") this.recover(error);
        this.reload();
      },
    });
  }

  /**
   * Opens recovery when the session has just come to need it (here or from elsewhere), and
   * closes the dialog when a load begun after it opened finds it recovered elsewhere (another
   * tab, omnictl). `started`: the number of the load that read the summary.
   */
  checkRecovery(started) {
    const needed = Boolean(this.summary?.needs_recovery);
    if (needed && !this.recoveryWasNeeded && !this.ownSending()) this.recover(null);
    if (!needed && this.recoveryOpen && started > this.recoveryOpen.since) {
      this.recoveryOpen.abort.abort();
      this.activity.add("info", "The session was recovered elsewhere: nothing left to choose.");
    }
    this.recoveryWasNeeded = needed;
  }

  /** The recovery dialog (one at a time); `failure`: the refused request's error, if any. */
  async recover(failure) {
    if (this.recoveryOpen) return;
    const abort = new AbortController();
    this.recoveryOpen = { abort, since: this.loads };
    try {
      const chosen = await openRecovery(this.id, failure, { signal: abort.signal });
      if (chosen) this.activity.add("info", `Recovery: ${chosen.action} applied.`);
    } catch (error) {
      this.activity.add("warn", `Recovery failed: ${error.message}`);
    } finally {
      this.recoveryOpen = null;
      this.reload();
    }
  }

  /**
   * First load: the latest turns, the reader at the end, the prompt focused; or, given a
   * node (`#/s/ID/N`), the turns around it with it in view, marked and focused.
   */
  async open(target) {
    const found = target === null ? false : await this.transcript.openAt(target);
    if (found) this.transcript.reveal(target);
    await this.reload();
    if (found) return this.transcript.refocus(target); // a form that came with the state may have taken both
    if (target !== null && this.summary) this.activity.add("warn", `This session has no node #${target}: showing its latest turns.`);
    this.transcript.toEnd();
    this.composer.focus();
  }
}

/**
 * Mounts the session view for route `#/s/ID` or `#/s/ID/N` (at node N); returns its unmount.
 * @param {HTMLElement} root
 * @param {(string | undefined)[]} params the id, and the node when the address names one
 */
export function mount(root, [id, node]) {
  const view = new SessionView(root, id);
  const abort = new AbortController();
  const uninstall = installShortcuts(view.actions, view);
  view.open(node === undefined ? null : Number(node));
  followSession(view, abort.signal);
  return () => {
    abort.abort();
    uninstall();
    view.transcript.close();
    view.tree.close();
    view.recoveryOpen?.abort.abort();
    view.unmountTools?.();
    view.activity.close();
    for (const dialog of document.querySelectorAll("dialog#shortcuts, dialog#pending-choice")) dialog.remove();
  };
}
