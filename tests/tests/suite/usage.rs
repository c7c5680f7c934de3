//! Usage and cost: every stored answer's tokens (input, cached, output, thinking), as the
//! model API reported them, summed per session, model and day by `omnictl usage` and
//! `GET /v1/usage`, priced by the configuration's `[prices."MODEL"]`; a session's running
//! total on every answer and in `history`; today's in `status`, proxied answers included,
//! and the same after a restart.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::net::SocketAddr;

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::{Omni, TEST_API_KEY};
use omni_tests::http::{Api, Target};
use serde_json::{Value, json};

const PRICES: &str =
    "[prices.\"fake-model\"]\ninput = 1.0\noutput = 2.0\ncached = 0.5\nthinking = 3.0\n";

/// An answer whose usage says these counts, as Gemini's stream reports them.
fn answer(text: &str, prompt: u64, cached: u64, output: u64, thoughts: u64) -> Reply {
    Reply::RawEvents(vec![
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                               "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": prompt, "cachedContentTokenCount": cached,
                                 "candidatesTokenCount": output, "thoughtsTokenCount": thoughts,
                                 "totalTokenCount": prompt + output + thoughts}})
        .to_string(),
    ])
}

/// What (input, cached, output, thinking) cost at the test's prices.
fn priced(input: u64, cached: u64, output: u64, thinking: u64) -> f64 {
    ((input - cached) as f64 + cached as f64 * 0.5 + output as f64 * 2.0 + thinking as f64 * 3.0)
        / 1e6
}

fn cost(totals: &Value) -> f64 {
    totals["cost"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cost in {totals}"))
}

fn tokens(totals: &Value) -> [u64; 5] {
    ["answers", "input", "cached", "output", "thinking"].map(|k| totals[k].as_u64().unwrap())
}

/// The answer `send --json` ends with (after its events, one JSON line each).
fn send(omni: &Omni, session: &str, prompt: &str) -> Value {
    let output = omni.ctl(&["--json", "send", "-s", session, prompt]).ok();
    output.json_lines().last().cloned().unwrap()
}

#[test]
fn usage_is_summed_per_session_model_and_day_and_priced_where_the_table_knows() {
    let omni = Omni::builder().config(PRICES).start();
    let first = omni.new_session();
    omni.fake().push([
        answer("one", 1000, 400, 50, 20),
        answer("two", 2000, 0, 100, 0),
    ]);
    let one = send(&omni, &first, "first question");
    assert_eq!(tokens(&one["session_usage"]), [1, 1000, 400, 50, 20]);
    assert!((cost(&one["session_usage"]) - priced(1000, 400, 50, 20)).abs() < 1e-12);
    let two = send(&omni, &first, "second question");
    assert_eq!(tokens(&two["session_usage"]), [2, 3000, 400, 150, 20]);
    let first_cost = priced(1000, 400, 50, 20) + priced(2000, 0, 100, 0);
    assert!((cost(&two["session_usage"]) - first_cost).abs() < 1e-12);

    let second = omni
        .ctl(&["--json", "new", "--model", "other-model"])
        .ok()
        .json()["session"]
        .as_str()
        .unwrap()
        .to_string();
    omni.fake().push([answer("three", 10, 0, 5, 0)]);
    send(&omni, &second, "a question for a model without a price");

    let report = omni.ctl(&["--json", "usage"]).ok().json();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{report}");
    assert_eq!(rows[0]["key"], first.as_str(), "the costlier session first");
    assert_eq!(rows[0]["label"], "first question");
    assert_eq!(rows[1]["totals"]["cost"], Value::Null);
    assert_eq!(rows[1]["totals"]["unpriced"], json!(["gemini/other-model"]));
    assert_eq!(tokens(&report["total"]), [3, 3010, 400, 155, 20]);
    assert!((cost(&report["total"]) - first_cost).abs() < 1e-12);

    let by_model = omni.ctl(&["--json", "usage", "--by", "model"]).ok().json();
    let keys: Vec<&str> = by_model["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["gemini/fake-model", "gemini/other-model"]);

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let by_day = omni.ctl(&["--json", "usage", "--by", "day"]).ok().json();
    assert_eq!(by_day["rows"][0]["key"], omni_proto::local_day(now));
    assert_eq!(
        tokens(&by_day["rows"][0]["totals"]),
        [3, 3010, 400, 155, 20]
    );

    let one_session = omni.ctl(&["--json", "usage", "-s", &second]).ok().json();
    assert_eq!(tokens(&one_session["total"]), [1, 10, 0, 5, 0]);
    let later = (now + 3_600_000).to_string();
    let none = omni
        .ctl(&["--json", "usage", "--since", &later])
        .ok()
        .json();
    assert_eq!(none["rows"], json!([]));
    assert_eq!(tokens(&none["total"]), [0, 0, 0, 0, 0]);
    let since_today = omni
        .ctl(&["--json", "usage", "--since", "today"])
        .ok()
        .json();
    assert_eq!(since_today["total"], report["total"]);

    let history = omni.history_of(&first);
    assert_eq!(tokens(&history["usage"]), [2, 3000, 400, 150, 20]);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(tokens(&status["usage_today"]), [3, 3010, 400, 155, 20]);

    let http = omni.api().get("/v1/usage?by=model");
    assert_eq!(http.status, 200, "{}", http.body);
    assert_eq!(http.json(), by_model);

    let table = omni.ctl(&["usage"]).ok().stdout;
    assert!(table.contains("first question"), "{table}");
    assert!(table.contains(&format!("{first_cost:.4}+")), "{table}");
    assert!(table.contains("no price for gemini/other-model"), "{table}");
}

#[test]
fn a_time_that_cannot_be_read_is_refused_with_the_forms_it_takes() {
    let omni = Omni::start();
    omni.ctl(&["usage", "--since", "last tuesday"])
        .fails(2, &["cannot read", "2026-11-01", "7d"]);
    let http = omni.api().get("/v1/usage?since=soon");
    let message = http.error(400, "invalid_request");
    assert!(message.contains("24h"), "{message}");
    let by = omni.api().get("/v1/usage?by=week");
    by.error(400, "invalid_request");
}

#[test]
fn today_counts_proxied_answers_and_reads_the_same_after_a_restart() {
    let mut omni = Omni::builder()
        .args(&["--proxy-listen", "127.0.0.1:0"])
        .config(PRICES)
        .start();
    let session = omni.new_session();
    omni.fake().push([
        answer("own", 100, 0, 10, 0),
        answer("proxied", 200, 50, 20, 5),
    ]);
    send(&omni, &session, "through omnictl");
    let status = omni.ctl(&["--json", "status"]).ok().json();
    let address: SocketAddr = status["proxy"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let proxy = Api::new(Target::Tcp(address), None);
    let reply = proxy.request(
        "POST",
        omni_tests::proxy::STREAM,
        &[("x-goog-api-key", TEST_API_KEY)],
        omni_tests::proxy::BODY,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);

    let today = |omni: &Omni| omni.ctl(&["--json", "status"]).ok().json()["usage_today"].clone();
    let before = today(&omni);
    assert_eq!(tokens(&before), [2, 300, 50, 30, 5]);
    assert!((cost(&before) - priced(100, 0, 10, 0) - priced(200, 50, 20, 5)).abs() < 1e-12);
    omni.kill9();
    omni.restart();
    assert_eq!(
        today(&omni),
        before,
        "read from the store once, not counted twice"
    );
    // At a terminal the answer's footer shows the session's running total.
    omni.fake().push([answer("at a terminal", 1000, 0, 10, 0)]);
    let (ok, screen) = omni.ctl_at_terminal(&format!("send -s {session} hello"), "");
    assert!(ok, "{screen}");
    assert!(
        screen.contains("session 1,100 in · 20 out · cost 0.0011]"),
        "{screen}"
    );
    assert_eq!(tokens(&today(&omni)), [3, 1300, 50, 40, 5]);
}
