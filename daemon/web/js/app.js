// @ts-check
// The web app's entry: routes the address's fragment to a view and shows a way back in
// when the login cookie is gone. Views: `#/` the sessions, `#/s/ID` one session
// (`#/s/ID/N`: shown at its node N, as a search hit links), `#/status` the daemon's
// health. Each view module exports `mount(root, params)` and returns a function that
// unmounts it (stops its streams and listeners).

import { whenLoggedOut } from "./api.js";
import { fill, h } from "./dom.js";

/**
 * A view module: `mount` shows it in `root` and returns what unmounts it.
 * @typedef {{ mount: (root: HTMLElement, params: (string | undefined)[]) => (() => void) | undefined | void }} View
 */

/** @type {{ pattern: RegExp, load: () => Promise<View>, nav: string }[]} */
const routes = [
  { pattern: /^#?\/?$/, load: () => import("./sessions.js"), nav: "nav-sessions" },
  { pattern: /^#\/s\/([^/]+)(?:\/(\d+))?$/, load: () => import("./session.js"), nav: "nav-sessions" },
  { pattern: /^#\/status$/, load: () => import("./status.js"), nav: "nav-status" },
];

const root = /** @type {HTMLElement} */ (document.getElementById("app")); // in index.html
/** @type {(() => void) | null} */
let unmount = null;
let loggedOut = false;
let generation = 0;

async function show() {
  if (loggedOut) return;
  const hash = location.hash || "#/";
  const route = routes.find((candidate) => candidate.pattern.test(hash));
  const mine = ++generation;
  if (unmount) {
    unmount();
    unmount = null;
  }
  for (const link of document.querySelectorAll("#topbar nav a")) {
    link.toggleAttribute("aria-current", route !== undefined && link.id === route.nav);
  }
  if (!route) {
    fill(root, h("p", { class: "empty" }, "No such page. ", h("a", { href: "#/" }, "All sessions")));
    return;
  }
  const params = (hash.match(route.pattern) ?? []).slice(1).map((p) => (p === undefined ? p : decodeURIComponent(p)));
  try {
    const view = await route.load();
    if (mine !== generation) return;
    root.replaceChildren();
    unmount = view.mount(root, params) ?? null;
  } catch (error) {
    if (mine !== generation) return;
    fill(root, h("p", { class: "error" }, `This page could not be shown: ${error.message}`));
  }
}

whenLoggedOut(() => {
  if (loggedOut) return;
  loggedOut = true;
  if (unmount) unmount();
  unmount = null;
  fill(
    root,
    h(
      "section",
      { id: "logged-out", class: "notice-page" },
      h("h1", {}, "Not logged in"),
      h("p", {}, "This browser has no login for omnid (a restart of omnid logs every browser out)."),
      h("p", {}, "Run ", h("code", {}, "omnictl web --open"), " for a new one-time link."),
    ),
  );
});

window.addEventListener("hashchange", show);
show();
