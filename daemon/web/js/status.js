// @ts-check
// The status page (`#/status`): `GET /v1/status` laid out for a person: the store's health
// and the daemon's version and uptime, the sessions it holds and has loaded, each model
// endpoint's circuit breaker, the proxy's counts, today's usage and where its files are.
// It refreshes every few seconds while shown; a failed refresh keeps the last good data.

import { getStatus } from "./api.js";
import { fill, h, localTime, thousands } from "./dom.js";

/** @typedef {import("./api-types.js").BreakerStatus} BreakerStatus */
/** @typedef {import("./api-types.js").ContextGauge} ContextGauge */
/** @typedef {import("./api-types.js").DaemonStatus} DaemonStatus */

const REFRESH_MS = 3000;

/** "3 d 4 h", "12 min 5 s": a span of time at the precision a person reads it. */
function duration(ms) {
  const seconds = Math.floor(ms / 1000);
  /** @type {[number, string][]} */
  const units = [
    [86400, "d"],
    [3600, "h"],
    [60, "min"],
    [1, "s"],
  ];
  const parts = [];
  let rest = seconds;
  for (const [size, name] of units) {
    if (rest >= size || (size === 1 && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(" ");
}

function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function clockTime(ms) {
  return new Date(ms).toTimeString().slice(0, 8);
}

/** A definition list of [label, value] pairs; pairs whose value is null are left out. */
function facts(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.filter(([, value]) => value !== null && value !== undefined).map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]),
  );
}

function stateBadge(text, tone) {
  return h("span", { class: ["state", tone] }, text);
}

function mono(text) {
  return h("code", {}, text);
}

/** @param {DaemonStatus} status */
function health(status) {
  const store = status.store_health;
  const storeState =
    store.state === "ok"
      ? stateBadge("ok: writes succeed", "ok")
      : [stateBadge("failing", "bad"), ` since ${localTime(store.since_ms)}: ${store.reason ?? "unknown reason"} (reads still work)`];
  return [
    h("h2", {}, "Health"),
    facts([
      ["Store", storeState],
      ["Version", `${status.version} (protocol ${status.protocol_version})`],
      ["Uptime", duration(status.uptime_ms)],
      ["Process", `pid ${status.pid}`],
      ["Model", mono(status.model)],
      ["Model API", mono(status.base_url)],
      ["Store size", `${bytes(status.store_bytes)} · ${thousands(status.store_commits)} commits · ${thousands(status.store_syncs)} syncs`],
      ["Log writes failed", status.log_write_failures > 0 ? stateBadge(thousands(status.log_write_failures), "bad") : "none"],
    ]),
  ];
}

/** @param {ContextGauge | null | undefined} context */
function gauge(context) {
  if (!context) return null;
  const of = context.window ? ` of ${thousands(context.window)}` : "";
  const percent = context.percent !== null && context.percent !== undefined ? ` (${context.percent} %)` : "";
  return [`${thousands(context.tokens)}${of} tokens${percent}, `, mono(context.model), context.warning && h("div", { class: "warn" }, context.warning)];
}

/** @param {DaemonStatus} status */
function sessions(status) {
  const damaged = status.damaged_sessions ?? [];
  return [
    h("h2", {}, "Sessions"),
    facts([
      ["In the store", thousands(status.sessions)],
      ["Loaded now", thousands(status.sessions_loaded)],
      ["Answering now", thousands(status.sends_in_flight)],
      ["Connections", thousands(status.connections)],
      ["Current context", gauge(status.current_context)],
    ]),
    damaged.length > 0 &&
      h(
        "div",
        { class: "damaged" },
        h("h3", {}, stateBadge(`${damaged.length} damaged`, "bad"), " readable, refusing changes"),
        h("ul", {}, damaged.map((item) => h("li", {}, h("a", { href: `#/s/${encodeURIComponent(item.id)}` }, item.id), `: ${item.reason}`))),
      ),
  ];
}

const BREAKER_STATES = {
  closed: ["closed", "ok", "requests flow"],
  open: ["open", "bad", "requests fail fast"],
  half_open: ["half-open", "warn", "one probe may go through"],
};

/** The model (and method) an endpoint's URL asks, the part of it that tells endpoints apart. */
function endpointLabel(endpoint) {
  try {
    const url = new URL(endpoint);
    const model = /\/models\/([^/:]+)(?::(\w+))?/.exec(url.pathname);
    if (model) return model[2] ? `${model[1]} · ${model[2]}` : model[1];
    return `${url.host}${url.pathname}`;
  } catch {
    return endpoint;
  }
}

/** @param {BreakerStatus} item */
function breaker(item) {
  const [label, tone, meaning] = BREAKER_STATES[item.state] ?? [item.state, "warn", ""];
  const probe = item.next_probe_in_ms !== null && item.next_probe_in_ms !== undefined ? `; next probe in ${duration(item.next_probe_in_ms)}` : "";
  return h(
    "li",
    { class: ["breaker", item.state], dataset: { state: item.state } },
    h("div", { class: "endpoint-name" }, endpointLabel(item.endpoint)),
    h("div", { class: "endpoint" }, mono(item.endpoint)),
    h("div", {}, stateBadge(label, tone), ` ${meaning}${probe} · ${item.consecutive_failures} failed in a row`),
  );
}

/** @param {DaemonStatus} status */
function breakers(status) {
  return [
    h("h2", {}, "Circuit breakers"),
    status.breakers.length === 0 ? h("p", { class: "muted" }, "No model endpoint has been used yet.") : h("ul", { class: "breaker-list" }, status.breakers.map(breaker)),
  ];
}

/**
 * One line of the proxy's table: an endpoint's counts, or the sum of them all.
 * @param {string} name
 * @param {{ requests: number, healed: number, failed: number }} counts a ProxyEndpointStatus or the ProxyStatus
 */
function countsRow(name, counts) {
  return h("tr", {}, h("th", { scope: "row" }, name), [counts.requests, counts.healed, counts.failed].map((n) => h("td", {}, thousands(n))));
}

/** @param {DaemonStatus} status */
function proxy(status) {
  const p = status.proxy;
  if (!p) {
    return [
      h("h2", {}, "Proxy"),
      h("p", { class: "muted" }, "The proxy is off. Start omnid with ", mono("--proxy-listen 127.0.0.1:PORT"), " to give other model clients Omni's retries and recording."),
    ];
  }
  return [
    h("h2", {}, "Proxy"),
    facts([["Listens on", mono(p.address)]]),
    h(
      "table",
      { class: "counts" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "API"), ["requests", "healed", "failed"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, p.endpoints.map((endpoint) => countsRow(endpoint.api, endpoint))),
      h("tfoot", {}, countsRow("all", p)),
    ),
    h("p", { class: "muted note" }, "Healed: needed more than one attempt, then succeeded. Failed: failed after retrying."),
  ];
}

/** @param {DaemonStatus} status */
function usage(status) {
  const today = status.usage_today;
  if (!today) return null;
  const cost = today.cost !== null && today.cost !== undefined ? today.cost.toFixed(4) : "no prices configured";
  return [
    h("h2", {}, "Today"),
    facts([
      ["Answers", thousands(today.answers)],
      ["Input tokens", `${thousands(today.input)} (${thousands(today.cached)} cached)`],
      ["Output tokens", thousands(today.output)],
      ["Thinking tokens", thousands(today.thinking)],
      ["Cost", cost],
      ["Without a price", today.unpriced?.length ? today.unpriced.join(", ") : null],
    ]),
  ];
}

/** @param {DaemonStatus} status */
function places(status) {
  const reloads = `${status.config_reloads} applied, ${status.config_reload_failures} rejected`;
  return [
    h("h2", {}, "Where things are"),
    facts([
      ["Control socket", mono(status.socket)],
      ["API socket", mono(status.api_socket)],
      ["HTTP API", status.http_address ? mono(status.http_address) : "off"],
      ["Web app", status.web_address ? mono(status.web_address) : null],
      ["Data", mono(status.data_dir)],
      ["Logs", mono(status.log_dir)],
      ["Configuration", status.config_file ? mono(status.config_file) : "none (defaults and flags)"],
      ["Reloads", reloads],
    ]),
  ];
}

// Each card, what draws it, and the fields of the status it shows: a card is redrawn only
// when those change, so a focused link or a selection in it survives the refresh.
/** @type {[id: string, build: (status: DaemonStatus) => any[] | null, fields: (keyof DaemonStatus)[]][]} */
const SECTIONS = [
  ["health", health, ["store_health", "version", "protocol_version", "uptime_ms", "pid", "model", "base_url", "store_bytes", "store_commits", "store_syncs", "log_write_failures"]],
  ["loaded-sessions", sessions, ["sessions", "sessions_loaded", "sends_in_flight", "connections", "current_context", "damaged_sessions"]],
  ["breakers", breakers, ["breakers"]],
  ["proxy-counts", proxy, ["proxy"]],
  ["usage-today", usage, ["usage_today"]],
  ["places", places, ["socket", "api_socket", "http_address", "web_address", "data_dir", "log_dir", "config_file", "config_reloads", "config_reload_failures"]],
];

/** Shows the status page in `root`, refreshing it every few seconds until unmounted. */
export function mount(root) {
  const updated = h("p", { class: "updated muted", "aria-live": "off" }, "Loading…");
  const problem = h("p", { class: "error status-error", role: "alert", hidden: true });
  const cards = SECTIONS.map(([id]) => h("section", { id, class: "card", hidden: true }));
  root.append(
    h(
      "section",
      { id: "status-page" },
      h("div", { class: "status-head" }, h("h1", {}, "Status"), updated),
      problem,
      h("div", { class: "status-grid" }, cards),
    ),
  );

  /** @type {number | undefined} */
  let timer;
  let stopped = false;
  /** @type {number | null} */
  let lastGood = null;
  const shown = new Map();

  function render(status) {
    SECTIONS.forEach(([id, build, fields], index) => {
      const key = JSON.stringify(fields.map((field) => status[field]));
      if (shown.get(id) === key) return;
      shown.set(id, key);
      const content = build(status);
      cards[index].hidden = !content;
      if (content) fill(cards[index], content);
    });
  }

  async function refresh() {
    try {
      const status = await getStatus();
      if (stopped) return;
      lastGood = Date.now();
      render(status);
      problem.hidden = true;
      updated.textContent = `Updated ${clockTime(lastGood)}, every ${REFRESH_MS / 1000} s`;
    } catch (error) {
      if (stopped) return;
      problem.hidden = false;
      const since = lastGood ? ` Showing what it said at ${clockTime(lastGood)}.` : "";
      problem.textContent = `The status could not be refreshed at ${clockTime(Date.now())}: ${error.message}.${since}`;
      if (!lastGood) updated.textContent = "";
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
