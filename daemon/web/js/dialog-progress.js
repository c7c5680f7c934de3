// @ts-check
// One line in a dialog saying how a streamed request is going while the daemon works:
// retries with their countdown, a fallback model, a compaction, the answer growing.
// The dialogs stay open while an answer streams, so this is where a person sees it.

import { h } from "./dom.js";

/** Node numbers as the command line says them: `node 5`, `nodes 1–16`, `12 nodes, 1–30`. */
export function span(nodes) {
  const distinct = [...new Set(nodes ?? [])].sort((a, b) => a - b);
  if (distinct.length === 0) return "no nodes";
  const low = distinct[0];
  const high = distinct[distinct.length - 1];
  if (low === high) return `node ${low}`;
  if (high - low + 1 === distinct.length) return `nodes ${low}–${high}`;
  return `${distinct.length} nodes, ${low}–${high}`;
}

/**
 * A status line (`p.progress`) and `update(name, data)`, to be called with every event of
 * the stream; `say(text)` sets it by hand and `stop()` ends a countdown.
 */
export function progressLine() {
  const line = h("p", { class: "progress", role: "status", "aria-live": "polite", hidden: true });
  /** @type {number | undefined} */
  let timer;
  let characters = 0;

  function say(text) {
    line.textContent = text;
    line.hidden = !text;
  }
  function stop() {
    clearInterval(timer);
    timer = undefined;
  }
  function countdown(event) {
    const until = Date.now() + (event.wait_ms ?? 0);
    const tick = () => {
      const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      say(
        `attempt ${event.attempt} of ${event.max_attempts} failed (${event.class}); ` +
          (seconds > 0 ? `trying again in ${seconds} s` : "trying again…"),
      );
      if (seconds === 0) stop();
    };
    stop();
    tick();
    timer = setInterval(tick, 250);
  }
  function update(name, data) {
    if (name !== "retrying") stop();
    if (name === "retrying" && data.fallback_to) say(`${data.fallback_to} answers instead (${data.class})`);
    else if (name === "retrying") countdown(data);
    else if (name === "compacting") say(`compacting ${data.covers} nodes with ${data.model}…`);
    else if (name === "compacted") say(`compacted ${span(data.covers)}; asking the model…`);
    else if (name === "thought") say("the model is thinking…");
    else if (name === "text") {
      characters += (data.text ?? "").length;
      say(`the model answers… (${characters} characters so far)`);
    } else if (name === "function_call") say(`the model calls ${data.name}`);
  }
  return { line, update, say, stop };
}
