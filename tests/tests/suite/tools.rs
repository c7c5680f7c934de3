//! The tool-call loop: the model calls functions, the user submits results with
//! `omnictl tool-result`, and the continuation streams back.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::scenario::tools_file;
use serde_json::{Value, json};

fn new_tool_session(omni: &Omni) {
    let tools = tools_file(omni);
    omni.ctl(&["new", "--tools", tools.to_str().unwrap()]).ok();
}

fn roles(history: &Value) -> Vec<String> {
    history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_full_tool_loop_call_result_continuation() {
    let omni = Omni::start();
    new_tool_session(&omni);
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Paris"}),
        Some("c1"),
    )]))]);
    let out = omni.ctl(&["--json", "send", "weather in Paris?"]).ok();
    let lines = out.json_lines();
    let call = lines
        .iter()
        .find(|l| l["event"] == "function_call")
        .unwrap();
    assert_eq!(
        (call["name"].as_str(), call["id"].as_str()),
        (Some("get_weather"), Some("c1"))
    );
    assert_eq!(call["args"], json!({"city": "Paris"}));
    let result = lines.last().unwrap();
    assert_eq!(result["pending_calls"][0]["name"], "get_weather");
    assert_eq!(result["pending_calls"][0]["answered"], false);
    // The declarations went to the API.
    let first = &omni.fake().requests()[0];
    assert_eq!(
        first.json()["tools"][0]["functionDeclarations"][0]["name"],
        "get_weather"
    );

    // The text client says what to do; a plain prompt now is refused with the list.
    let out = omni.ctl(&["send", "are you there?"]);
    out.fails(
        1,
        &[
            "waiting for the results of its function calls: get_weather (id c1)",
            "omnictl tool-result",
        ],
    );
    assert_eq!(omni.fake().request_count(), 1);

    let out = omni
        .ctl(&[
            "tool-result",
            "get_weather",
            r#"{"output": {"temp_c": 21}}"#,
        ])
        .ok();
    assert!(
        out.stdout
            .contains(r#"Thanks: get_weather returned {"output":{"temp_c":21}}"#),
        "{}",
        out.stdout
    );

    // The call (with its thought signature) and its result travel back, ids kept.
    let contents = omni.fake().requests()[1].contents();
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
                                           "thoughtSignature": "sig-get_weather"}]})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "id": "c1",
                                                               "response": {"output": {"temp_c": 21}}}}]})
    );
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(roles(&history), ["user", "model", "tool", "model"]);
    let text = omni.ctl(&["history"]).ok().stdout;
    assert!(
        text.contains("#2 model: → get_weather({\"city\":\"Paris\"})"),
        "{text}"
    );
    assert!(
        text.contains("#3 tool: ← get_weather: {\"output\":{\"temp_c\":21}}"),
        "{text}"
    );
}

#[test]
fn parallel_calls_are_answered_in_call_order_and_survive_a_crash_in_between() {
    let mut omni = Omni::start();
    new_tool_session(&omni);
    omni.fake().push([Reply::Answer(Answer::calls([
        ("get_weather", json!({"city": "Paris"}), Some("a")),
        ("get_weather", json!({"city": "Rome"}), Some("b")),
        ("get_time", json!({"tz": "CET"}), None),
    ]))]);
    omni.ctl(&["send", "weather in Paris and Rome, and the time?"])
        .ok();

    // Results arrive out of order, one of them not an object.
    let out = omni
        .ctl(&[
            "tool-result",
            "--id",
            "b",
            "get_weather",
            r#"{"output": "rainy"}"#,
        ])
        .ok();
    assert!(
        out.stdout
            .contains("still waiting for: get_weather (id a), get_time"),
        "{}",
        out.stdout
    );
    let out = omni.ctl(&["tool-result", "get_time", r#""12:00""#]).ok();
    assert!(
        out.stdout.contains("still waiting for: get_weather (id a)"),
        "{}",
        out.stdout
    );

    // Submitted results are durable.
    omni.kill9();
    omni.restart();
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let answered: Vec<bool> = sessions["sessions"][0]["pending_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["answered"].as_bool().unwrap())
        .collect();
    assert_eq!(answered, [false, true, true]);

    omni.ctl(&["tool-result", "get_weather", r#"{"output": "sunny"}"#])
        .ok();
    let contents = omni.fake().requests()[1].contents();
    let responses: Vec<(String, Value, Value)> = contents[2]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let r = &p["functionResponse"];
            (
                r["name"].as_str().unwrap().to_string(),
                r["id"].clone(),
                r["response"].clone(),
            )
        })
        .collect();
    assert_eq!(
        responses,
        [
            ("get_weather".into(), json!("a"), json!({"output": "sunny"})),
            ("get_weather".into(), json!("b"), json!({"output": "rainy"})),
            ("get_time".into(), Value::Null, json!({"output": "12:00"})),
        ]
    );
    // Only the first of the parallel calls carried a signature, and it was sent back there.
    let calls = contents[1]["parts"].as_array().unwrap();
    assert_eq!(calls[0]["thoughtSignature"], "sig-get_weather");
    assert!(calls[1].get("thoughtSignature").is_none());
}

#[test]
fn results_that_match_no_call_are_refused_clearly() {
    let omni = Omni::start();
    new_tool_session(&omni);
    omni.ctl(&["tool-result", "get_weather", "{}"])
        .fails(1, &["no function calls are waiting"]);
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Oslo"}),
        Some("w1"),
    )]))]);
    omni.ctl(&["send", "weather?"]).ok();
    omni.ctl(&["tool-result", "get_time", "{}"]).fails(
        1,
        &["the model did not call get_time", "get_weather (id w1)"],
    );
    omni.ctl(&["tool-result", "--id", "zz", "get_weather", "{}"])
        .fails(1, &["no pending call has id zz"]);
    omni.ctl(&["tool-result", "get_weather", "not json"])
        .fails(2, &["not valid JSON"]);
    let bad_tools = omni.dir().join("bad.json");
    std::fs::write(&bad_tools, r#"{"name": "x"}"#).unwrap();
    omni.ctl(&["new", "--tools", bad_tools.to_str().unwrap()])
        .fails(2, &["must be a JSON array"]);
    assert_eq!(
        omni.fake().request_count(),
        1,
        "nothing refused reached the model"
    );
}

#[test]
fn a_function_call_is_the_answer_so_it_goes_to_stdout() {
    let omni = Omni::start();
    new_tool_session(&omni);
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Rome"}),
        Some("c1"),
    )]))]);
    // As `omnictl send ... > answer.txt` would see it.
    let out = omni.ctl(&["send", "weather in Rome?"]).ok();
    assert_eq!(
        out.stdout, "→ get_weather({\"city\":\"Rome\"})\n",
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("submit each with"), "{}", out.stderr);
}

#[test]
fn a_huge_tool_result_reaches_the_model_cut_and_the_session_keeps_it_whole() {
    let omni = Omni::builder()
        .config("[context]\nmax_tool_result = 65536\n")
        .start();
    new_tool_session(&omni);
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Paris"}),
        Some("c1"),
    )]))]);
    omni.ctl(&["send", "weather in Paris?"]).ok();
    let half = "0123456789abcdef".repeat(65_536); // 1 MiB
    let output = format!("BEGIN-{half}-THE-MIDDLE-{half}-END");
    let result = json!({ "output": output }).to_string();
    assert!(result.len() > 2_000_000);
    omni.ctl_with_stdin(&["tool-result", "get_weather", "-"], Some(&result))
        .ok();

    let sent = omni.fake().requests().pop().unwrap();
    assert!(sent.body.len() < 80_000, "{} bytes sent", sent.body.len());
    let contents = sent.contents();
    let response = &contents[2]["parts"][0]["functionResponse"]["response"];
    let cut = response["output"].as_str().unwrap();
    assert!(cut.starts_with(r#"{"output":"BEGIN-0123"#), "{cut:.100}");
    assert!(
        cut.ends_with(r#"cdef-END"}"#),
        "{}",
        &cut[cut.len() - 100..]
    );
    let marker = format!(
        "of {} bytes of this tool result elided; the session keeps it whole]",
        omni_proto::thousands(result.len() as u64)
    );
    assert!(cut.contains(&marker), "{marker} not in the cut");
    assert!(!cut.contains("THE-MIDDLE"));

    let history = omni.ctl(&["history", "--full"]).ok();
    assert!(
        history.stdout.contains("THE-MIDDLE"),
        "the stored node is whole"
    );
    assert!(history.stdout.contains(&half), "every byte of it");
}
