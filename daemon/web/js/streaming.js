// @ts-check
// The answer streaming right now, whichever client asked for it: an `.entry.streaming`
// (no node number yet) whose `.entry-text` grows with each `text` event, thoughts in a
// `.thought` as they come, function calls folded. The stored answer replaces it.

import { h } from "./dom.js";
import { callDetails, thoughtDetails } from "./entry.js";
import { renderMarkdown } from "./markdown.js";

/** How often a growing answer's markdown is drawn again. */
const REDRAW_MS = 40;

/** One streaming answer's element and the text it has gathered. */
export class StreamingEntry {
  /** `around(draw)`: runs each redraw (the transcript keeps the reader's place around it). */
  constructor(label = "answering…", around = (draw) => draw()) {
    this.around = around;
    this.text = "";
    this.thoughts = "";
    this.timer = 0;
    this.textBox = h("div", { class: "entry-text" });
    this.thoughtBox = null;
    this.status = h("span", { class: "stream-status" }, label);
    this.element = h(
      "article",
      { class: "entry streaming", dataset: { role: "model" }, "aria-busy": "true" },
      h("header", { class: "entry-meta" }, h("span", { class: "role" }, "model"), this.status),
      this.textBox,
    );
  }

  /** Adds a piece of the answer; its markdown is drawn again shortly (see schedule). */
  addText(piece) {
    this.text += piece;
    this.schedule();
  }

  /** Adds a piece of the model's thinking, shown open and dim while it streams. */
  addThought(piece) {
    this.thoughts += piece;
    if (!this.thoughtBox) {
      this.thoughtBox = thoughtDetails("", true);
      this.textBox.before(this.thoughtBox);
    }
    this.thoughtBox.querySelector(".thought-text")?.replaceChildren(renderMarkdown(this.thoughts));
  }

  /** Adds a function call the model made (its result comes from the caller). */
  addCall(name, args) {
    this.element.append(callDetails(name, JSON.stringify(args ?? {})));
  }

  /** Says what the answer waits for (a retry's pause, a fallback model). */
  setStatus(text) {
    this.status.textContent = text;
  }

  /** Draws the markdown again at most every few frames (a timer, so a hidden tab keeps up). */
  schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.around(() => this.textBox.replaceChildren(renderMarkdown(this.text)));
    }, REDRAW_MS);
  }

  /** Takes the element out (the stored answer, or nothing, takes its place). */
  remove() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.element.remove();
  }
}
