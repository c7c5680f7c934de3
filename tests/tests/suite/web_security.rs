//! The web app's security in a real browser: the login link leaves no secret in the
//! address bar and the cookie is out of scripts' reach; a page of another origin cannot
//! make omnid change anything, even one on the same site that the browser sends the cookie
//! from; a foreign `Host` (DNS rebinding) is refused; and a prompt or a model's answer
//! holding `<script>`, `<img onerror>` or a `javascript:` link is shown inert.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::time::Duration;

use omni_tests::browser::{Browser, BrowserOptions, WebOmni, entries};
use serde_json::Value;

/// Serves `page` as HTML to every request on a loopback port of its own; returns the port.
fn serve_foreign_page(page: String) -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{page}",
        page.len()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let reply = reply.clone();
            std::thread::spawn(move || {
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

/// A page that tries, three ways, to make a session in the omnid at `target`: a "simple"
/// request (no preflight), a JSON one (preflighted) and a form posted into a frame.
fn attacking_page(target: &str) -> String {
    format!(
        r#"<!doctype html><title>elsewhere</title>
<form id="f" method="post" action="{target}/v1/sessions" enctype="text/plain" target="sink">
<input name='{{"x":"' value='"}}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
const url = "{target}/v1/sessions";
const plain = fetch(url, {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"content-type": "text/plain"}}, body: "{{}}"}});
const json = fetch(url, {{method: "POST", credentials: "include",
  headers: {{"content-type": "application/json"}}, body: "{{}}"}});
const framed = new Promise(done => document.getElementById("sink").onload = done);
document.getElementById("f").submit();
Promise.allSettled([plain, json, framed]).then(r => {{
  window.attempts = r.map(x => x.status + " " + (x.value && x.value.type || x.reason || ""));
}});
</script>"#
    )
}

#[test]
fn the_link_logs_in_and_another_origin_or_a_foreign_host_is_refused() {
    let web = WebOmni::start();
    // Names of an attacker's that resolve to loopback, asked for over plain HTTP.
    let browser = Browser::start(
        BrowserOptions::laptop()
            .arg("--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP other.test 127.0.0.1")
            .arg("--disable-features=HttpsUpgrades"),
    );
    browser.login(&web);
    let cookie = browser.js("return document.cookie", &[]);
    assert_eq!(cookie, "", "the session cookie is HttpOnly");
    browser.assert_console_clean(&[]);

    // Another origin on the same site (the browser sends the cookie along, so only the
    // Origin check stands in the way: the form's post is answered 403), then another
    // site: neither makes a session.
    let port = serve_foreign_page(attacking_page(&web.url("")));
    for (origin, refused_by_omnid) in [
        (format!("http://127.0.0.1:{port}/"), true),
        (format!("http://other.test:{port}/"), false),
    ] {
        let forbidden = || {
            let console = browser.console();
            console
                .iter()
                .filter(|e| e.message.contains("status of 403"))
                .count()
        };
        let forbidden_before = forbidden();
        browser.goto(&origin);
        let attempts = browser.wait_until(
            &format!("the page at {origin} to finish its requests"),
            "return window.attempts",
            &[],
        );
        assert_eq!(
            web.sessions(),
            Vec::<Value>::new(),
            "a page at {origin} made a session ({attempts})"
        );
        if refused_by_omnid {
            assert!(
                forbidden() > forbidden_before,
                "omnid refused the form's post with 403:\n{:#?}",
                browser.console()
            );
        }
    }

    // DNS rebinding: a name of the attacker's that resolves to loopback.
    let port = web.address.port();
    browser.goto(&format!("http://rebind.test:{port}/v1/status"));
    let body = browser.js("return document.body.innerText", &[]);
    let body = body.as_str().unwrap();
    assert!(
        body.contains("answers only to its own address") && !body.contains("\"version\""),
        "a foreign Host is refused: {body}"
    );
    browser.goto(&format!("http://rebind.test:{port}/"));
    let page = browser.js("return document.documentElement.outerHTML", &[]);
    assert!(
        !page.as_str().unwrap().contains("/assets/js/app.js"),
        "no app under a foreign Host: {page}"
    );
}

/// Markup that would run if it became live HTML: each sets `window.omniPwned`.
const INJECTED: &str = "<script>window.omniPwned = 'script'</script> \
    <img src=x onerror=\"window.omniPwned = 'img'\"> \
    [a link](javascript:window.omniPwned='markdown-link') \
    <a href=\"javascript:window.omniPwned='html-link'\">b</a>";

/// A model's answer with the same markup as blocks of their own.
const INJECTED_BLOCKS: &str = "<script>window.omniPwned = 'block-script'</script>\n\n\
    <img src=x onerror=\"window.omniPwned = 'block-img'\">\n\n\
    [a link](javascript:window.omniPwned='block-markdown-link')\n\n\
    <iframe src=\"javascript:parent.omniPwned='iframe'\"></iframe>\n\n\
    <svg><script>window.omniPwned = 'svg'</script></svg>\n";

/// Asserts no injected markup is live in the page: no script ran, no event handler or
/// `javascript:` address or script element is in the transcript.
#[track_caller]
fn assert_inert(browser: &Browser) {
    let live = browser.js(
        "const t = document.querySelector('#transcript'); \
         const all = [...t.querySelectorAll('*')]; \
         return { \
           pwned: window.omniPwned || null, \
           handlers: all.filter(e => [...e.attributes].some(a => a.name.startsWith('on'))) \
             .map(e => e.outerHTML), \
           scripts: t.querySelectorAll('script, iframe, object, embed').length, \
           js_links: all.filter(e => ['href', 'src', 'xlink:href', 'action'] \
             .some(n => /^\\s*javascript:/i.test(e.getAttribute(n) || ''))).map(e => e.outerHTML), \
         }",
        &[],
    );
    assert_eq!(live["pwned"], Value::Null, "a script ran: {live}");
    assert_eq!(live["handlers"], serde_json::json!([]), "{live}");
    assert_eq!(live["scripts"], 0, "{live}");
    assert_eq!(live["js_links"], serde_json::json!([]), "{live}");
}

/// A session imported from an export whose model answer is `text`.
fn imported_with_answer(web: &WebOmni, text: &str) -> String {
    let omni = &web.omni;
    let session = omni.new_session();
    omni.ctl(&["send", "-s", &session, "plain"]).ok();
    let file = omni.dir().join("export.json");
    let path = file.to_str().unwrap();
    omni.ctl(&[
        "export", "-s", &session, "--format", "json", "-o", path, "--force",
    ])
    .ok();
    let answer = omni.history_of(&session)["entries"][1]["text"].clone();
    let export = std::fs::read_to_string(&file).unwrap();
    let answer = serde_json::to_string(&answer).unwrap();
    assert!(export.contains(&answer), "the export holds the answer");
    let crafted = export.replace(&answer, &serde_json::to_string(text).unwrap());
    std::fs::write(&file, crafted).unwrap();
    let imported = omni.ctl(&["--json", "import", path]).ok().json();
    let imported = &imported["sessions"][0];
    assert_eq!(imported["added"], true, "{imported}");
    imported["session"]
        .as_str()
        .unwrap_or_else(|| panic!("the import names its session: {imported}"))
        .to_string()
}

#[test]
fn a_prompt_or_an_answer_holding_script_is_shown_inert() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);

    // Typed in the composer: the prompt, and the demo's echo of it in the answer.
    browser.new_session_from_list(&web);
    browser.send_prompt(INJECTED);
    browser.wait_for_answer("I am the Omni demo model");
    let prompt = browser.text(&format!("{} .entry-text", entries("user")));
    assert!(
        prompt.contains("<script>") && prompt.contains("onerror"),
        "a prompt is shown as the text it is: {prompt}"
    );
    assert_inert(&browser);

    // An answer with the markup as blocks, which no demo answer has: from an import.
    let session = imported_with_answer(&web, INJECTED_BLOCKS);
    browser.open_session(&web, &session);
    browser.wait_for(&entries("model"));
    assert_inert(&browser);
    browser.assert_console_clean(&[]);
}
