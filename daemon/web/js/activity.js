// @ts-check
// `#activity`: what happens to an answer while it is on its way, from whichever client
// asked: a retry (attempt, class of failure, a countdown to the next try), a fallback to
// another model, a compaction, prompts merged, an answer stopped. Each notice can be
// dismissed; retries fade a little after their answer ends, the rest stay until the next.

import { h } from "./dom.js";

/** How long a retry notice stays once its answer has ended. */
const LINGER_MS = 8000;

/** The notices area and its countdowns. */
export class Activity {
  constructor() {
    this.element = h("div", { id: "activity", role: "status", "aria-live": "polite" });
    this.timers = new Set();
  }

  /** Stops every countdown (the view is going away). */
  close() {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
  }

  /** A notice of `kind` (retrying, fallback, info, warn) with `text` and a dismiss button. */
  add(kind, text, detail) {
    const line = h("span", { class: "notice-text" }, text);
    const notice = h(
      "div",
      { class: ["notice", kind], title: detail ?? null },
      line,
      h(
        "button",
        { class: "dismiss", type: "button", "aria-label": "Dismiss", onclick: () => notice.remove() },
        "×",
      ),
    );
    this.element.append(notice);
    return { notice, line };
  }

  /** A `retrying` event: a retry notice with a countdown, or a fallback notice. */
  retrying(data) {
    if (data.fallback_to) {
      this.add(
        "fallback",
        `Fallback: the model could not answer (${data.class}); asking ${data.fallback_to} instead`,
        data.message,
      );
      return;
    }
    const of = data.max_attempts ? ` of ${data.max_attempts}` : "";
    const head = `Retrying: attempt ${data.attempt}${of} failed (${data.class})`;
    const { notice, line } = this.add("retrying", head, data.message);
    const due = Date.now() + (data.wait_ms ?? 0);
    const tick = () => {
      const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
      line.textContent = left > 0 ? `${head}; trying again in ${left} s` : `${head}; trying again now`;
      if (left === 0 || !notice.isConnected) this.stop(timer);
    };
    const timer = setInterval(tick, 250);
    this.timers.add(timer);
    tick();
  }

  stop(timer) {
    clearInterval(timer);
    this.timers.delete(timer);
  }

  /** The answer ended: its retry notices go after a while. */
  answerEnded() {
    const done = [...this.element.querySelectorAll(".notice.retrying")];
    setTimeout(() => done.forEach((notice) => notice.remove()), LINGER_MS);
  }

  /** A new answer starts: the last answer's notices are old news. */
  newAnswer() {
    for (const notice of this.element.querySelectorAll(".notice")) notice.remove();
  }
}
