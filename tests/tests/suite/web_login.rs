//! The web app's door, end to end over real HTTP: `omnictl web`'s one-time link sets an
//! HttpOnly, SameSite=Strict cookie; the API answers a browser only with it; a foreign
//! Host or a state change from another origin is refused; every answer carries the
//! security headers. (What the page does with it is in the browser tests.)
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use omni_tests::http::{Api, HttpReply, Target};

fn web_omni() -> (Omni, std::net::SocketAddr) {
    let omni = Omni::builder()
        .args(&["--demo", "--web-listen", "127.0.0.1:0"])
        .start();
    let status: serde_json::Value =
        serde_json::from_str(&omni.ctl(&["--json", "status"]).ok().stdout).unwrap();
    let address = status["web_address"]
        .as_str()
        .expect("status shows the web app");
    (omni, address.parse().unwrap())
}

/// A request as a browser at our origin makes it (own Host; Origin on changes).
fn ask(api: &Api, host: &str, method: &str, path: &str, cookie: Option<&str>) -> HttpReply {
    let origin = format!("http://{host}");
    let mut headers = vec![("host", host), ("origin", origin.as_str())];
    if let Some(cookie) = cookie {
        headers.push(("cookie", cookie));
    }
    api.request(method, path, &headers, "{}")
}

fn login_link(omni: &Omni) -> String {
    let out = omni.ctl(&["web"]).ok();
    let link = out.stdout.trim().to_string();
    assert!(link.contains("/login?key="), "{}", out.stdout);
    link
}

#[test]
fn without_the_web_listener_omnictl_web_says_how_to_serve_it() {
    let omni = Omni::builder().args(&["--demo"]).start();
    let out = omni.ctl(&["web"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--web-listen"), "{}", out.stderr);
}

#[test]
fn a_link_logs_a_browser_in_once_and_the_api_needs_its_cookie() {
    let (omni, address) = web_omni();
    let host = address.to_string();
    let api = Api::new(Target::Tcp(address), None);
    let link = login_link(&omni);
    let path = link.split_once(&host).unwrap().1;

    assert_eq!(ask(&api, &host, "GET", "/v1/status", None).status, 401);
    let landed = ask(&api, &host, "GET", path, None);
    assert_eq!(landed.status, 303, "{}", landed.body);
    assert_eq!(landed.headers["location"], "/", "the secret leaves the URL");
    let set = landed.headers["set-cookie"].to_str().unwrap().to_string();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    let cookie = set.split(';').next().unwrap().to_string();
    assert_eq!(ask(&api, &host, "GET", path, None).status, 403, "used once");

    let status = ask(&api, &host, "GET", "/v1/status", Some(&cookie));
    assert_eq!(status.status, 200, "{}", status.body);
    assert_eq!(status.headers["cache-control"], "no-store");
    let created = ask(&api, &host, "POST", "/v1/sessions", Some(&cookie));
    assert_eq!(created.status, 201, "{}", created.body);
    let forged = ask(&api, &host, "GET", "/v1/status", Some("omni_web=00"));
    assert_eq!(forged.status, 401);
}

#[test]
fn a_foreign_host_or_origin_is_refused_and_every_answer_forbids_framing_and_inline_script() {
    let (omni, address) = web_omni();
    let host = address.to_string();
    let api = Api::new(Target::Tcp(address), None);
    let link = login_link(&omni);
    let landed = ask(&api, &host, "GET", link.split_once(&host).unwrap().1, None);
    let set = landed.headers["set-cookie"].to_str().unwrap();
    let cookie = set.split(';').next().unwrap();

    let page = ask(&api, &host, "GET", "/", None);
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert_eq!(page.headers["x-frame-options"], "DENY");

    let rebound = ask(&api, "evil.example", "GET", "/v1/status", Some(cookie));
    assert_eq!(rebound.status, 403, "DNS rebinding: {}", rebound.body);
    let cross_site = api.request(
        "POST",
        "/v1/sessions",
        &[
            ("host", host.as_str()),
            ("origin", "http://evil.example"),
            ("cookie", cookie),
        ],
        "{}",
    );
    assert_eq!(cross_site.status, 403, "{}", cross_site.body);
    let no_origin = api.request(
        "POST",
        "/v1/sessions",
        &[("host", host.as_str()), ("cookie", cookie)],
        "{}",
    );
    assert_eq!(no_origin.status, 403, "{}", no_origin.body);
    let sessions = ask(&api, &host, "GET", "/v1/sessions", Some(cookie)).json();
    assert_eq!(
        sessions["sessions"],
        serde_json::json!([]),
        "nothing was made"
    );
    assert_eq!(
        ask(&api, &host, "GET", "/assets/nothing.js", None).status,
        404
    );
}
