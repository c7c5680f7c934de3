// @ts-check
// The session's header: its title (click to rename), the model its next send asks, its
// state (idle, answering, needs recovery, ...), how full the context is, and whether the
// page follows the session live.

import { setTitle } from "./api.js";
import { h, thousands, toast } from "./dom.js";

/** @typedef {import("./api-types.js").ContextGauge} ContextGauge */
/** @typedef {import("./api-types.js").SessionSummary} SessionSummary */

/**
 * "context 12% of 32,768", as omnictl's gauge says it.
 * @param {ContextGauge | null | undefined} context
 */
export function gaugeText(context) {
  if (!context) return "context unknown";
  if (context.percent !== null && context.window) {
    return `context ${context.percent}% of ${thousands(context.window)}`;
  }
  return `context ${thousands(context.tokens ?? context.estimated)} tokens (window unknown)`;
}

/**
 * The gauge's words with the window's size apart, so a narrow header can leave it out.
 * @param {ContextGauge | null | undefined} context
 */
function gaugeParts(context) {
  const text = gaugeText(context);
  const cut = text.indexOf(" of ");
  if (cut < 0) return [text];
  return [text.slice(0, cut), h("span", { class: "gauge-window" }, text.slice(cut))];
}

/** The header's elements and how they are brought up to date. */
export class Header {
  /** `onRenamed(summary)`: the title was changed here. */
  constructor(sessionId, { onRenamed, treeToggle }) {
    this.sessionId = sessionId;
    this.onRenamed = onRenamed;
    this.title = h(
      "button",
      { id: "session-title", type: "button", title: "Rename the session", onclick: () => this.rename() },
      "…",
    );
    this.model = h("span", { id: "session-model", class: "badge" }, "");
    this.state = h("span", { id: "session-state", class: "badge" }, "loading");
    this.gauge = h("meter", { id: "context-gauge", min: 0, max: 100, low: 70, high: 90, optimum: 0, value: 0 });
    this.gaugeLabel = h("span", { class: "gauge-label muted" }, "");
    this.live = h("span", { id: "live-state", class: "badge" }, "connecting");
    this.element = h(
      "header",
      { id: "session-header" },
      h("h1", {}, this.title),
      h(
        "div",
        { class: "session-facts" },
        this.model,
        this.state,
        h("span", { class: "gauge" }, this.gauge, this.gaugeLabel),
        this.live,
      ),
      treeToggle,
    );
    this.summary = null;
  }

  /**
   * Shows a session summary's title, model and context.
   * @param {SessionSummary} summary
   */
  showSummary(summary) {
    this.summary = summary;
    this.title.textContent = summary.title || "untitled";
    this.title.title = summary.title ? `${summary.title} (click to rename)` : "Name the session";
    this.title.classList.toggle("untitled", !summary.title);
    this.model.textContent = summary.model;
    this.model.title = summary.fallback?.length
      ? `asks ${summary.model}, then ${summary.fallback.join(", ")}`
      : `asks ${summary.model}`;
    this.showContext(summary.context);
  }

  /**
   * Shows how full the context is.
   * @param {ContextGauge | null | undefined} context
   */
  showContext(context) {
    this.gauge.value = context?.percent ?? 0;
    this.gaugeLabel.replaceChildren(...gaugeParts(context));
    this.gauge.title = gaugeText(context);
    this.gaugeLabel.title = this.gauge.title;
  }

  /** Shows the session's state in words; `attention` marks one that needs the user. */
  showState(text, kind = "idle") {
    this.state.textContent = text;
    this.state.dataset.kind = kind;
  }

  /** Shows whether the events stream is connected. */
  showLive(state) {
    this.live.textContent = state;
    this.live.dataset.state = state;
  }

  /** Puts a field in place of the title; Enter (or leaving it) saves, Escape cancels. */
  rename() {
    const field = h("input", {
      id: "title-input",
      type: "text",
      value: this.summary?.title ?? "",
      "aria-label": "Session title",
      maxlength: 200,
    });
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      field.replaceWith(this.title);
      this.title.focus();
      const title = field.value.trim();
      if (!save || title === (this.summary?.title ?? "") || title === "") return;
      this.title.textContent = title;
      try {
        const summary = await setTitle(this.sessionId, title);
        this.onRenamed(summary);
      } catch (error) {
        toast(`The title was not changed: ${error.message}`, "error");
        if (this.summary) this.showSummary(this.summary); // the title as it was
      }
    };
    field.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== "Escape") return;
      // Not passed on: the focus goes back to the title button, which Enter would click.
      event.preventDefault();
      event.stopPropagation();
      finish(event.key === "Enter");
    });
    field.addEventListener("blur", () => finish(true));
    this.title.replaceWith(field);
    field.focus();
    field.select();
  }
}
