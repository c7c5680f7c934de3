//! The official Gemini SDK for Python against `omnid --demo` through the proxy: the
//! README's snippet as written (only its address changed to the proxy's), and the SDK
//! example's whole, streamed and counted calls. The demo model answers every path the
//! proxy forwards, under `v1beta` and `v1`, and anything else with the API's JSON error.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use omni_tests::http::{Api, Target};
use omni_tests::proxy::proxy_status;
use omni_tests::python;

/// `omnid --demo` with the proxy on a free port, taking any key (the README's way to try it
/// with no key), and the proxy's address.
fn demo_with_proxy() -> (Omni, String) {
    let omni = Omni::builder()
        .args(&[
            "--demo",
            "--proxy-listen",
            "127.0.0.1:0",
            "--proxy-accept-any-key",
        ])
        .start();
    let address = proxy_status(&omni)["address"].as_str().unwrap().to_string();
    (omni, address)
}

/// The README's Python snippet: the lines between `python3 - <<'PY'` and `PY`.
fn readme_snippet() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let start = readme
        .find("python3 - <<'PY'\n")
        .expect("the README's SDK snippet");
    let body = &readme[start + "python3 - <<'PY'\n".len()..];
    body[..body.find("\nPY\n").expect("the snippet's end")].to_string()
}

fn run_python(args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(python::python())
        .args(args)
        .env_remove("GOOGLE_API_KEY")
        .env("GEMINI_API_KEY", "any-key")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}: {}", python::hint()));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "python failed ({}):\n{stdout}\n{stderr}",
        python::hint()
    );
    stdout
}

#[test]
fn the_readme_sdk_snippet_runs_against_the_demo_as_written() {
    let (_omni, address) = demo_with_proxy();
    let snippet = readme_snippet();
    assert!(snippet.contains("http://127.0.0.1:8765"), "{snippet}");
    let snippet = snippet.replace("http://127.0.0.1:8765", &format!("http://{address}"));
    let stdout = run_python(&["-"], Some(&snippet));
    assert!(
        stdout.contains("You said: \"hello\". I am the Omni demo model"),
        "{stdout}"
    );
}

#[test]
fn the_sdk_example_generates_streams_and_counts_tokens_against_the_demo() {
    let (omni, address) = demo_with_proxy();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/python/gemini_sdk.py"
    );
    let stdout = run_python(&[script, &format!("http://{address}"), "omni-demo"], None);
    omni_tests::python::assert_sdk_example_answered(&stdout);
    assert!(stdout.contains("tokens: 2"), "{stdout}");
    assert_eq!(proxy_status(&omni)["failed"], 0);
}

#[test]
fn the_demo_answers_every_path_the_proxy_forwards_under_both_versions() {
    let (_omni, address) = demo_with_proxy();
    let api = Api::new(Target::Tcp(address.parse().unwrap()), None);
    let key = [("x-goog-api-key", "any-key")];
    let body = r#"{"contents": [{"role": "user", "parts": [{"text": "hi there"}]}]}"#;
    for version in ["v1beta", "v1"] {
        let listed = api.request("GET", &format!("/{version}/models"), &key, "");
        assert_eq!(listed.status, 200, "{}", listed.body);
        assert!(
            listed.body.contains("models/omni-demo-lite"),
            "{}",
            listed.body
        );
        let one = api.request("GET", &format!("/{version}/models/omni-demo"), &key, "");
        assert_eq!(one.status, 200, "{}", one.body);
        assert!(one.body.contains("countTokens"), "{}", one.body);
        assert_eq!(one.json()["inputTokenLimit"], 32_768, "{}", one.body);
        for method in [
            "generateContent",
            "streamGenerateContent?alt=sse",
            "countTokens",
        ] {
            let path = format!("/{version}/models/omni-demo:{method}");
            let reply = api.request("POST", &path, &key, body);
            assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        }
        let unknown = format!("/{version}/models/omni-demo:embedContent");
        let reply = api.request("POST", &unknown, &key, body);
        assert_eq!(reply.status, 404, "{}", reply.body);
        let error: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
        assert_eq!(error["error"]["status"], "NOT_FOUND", "{}", reply.body);
    }
}

/// The OpenAI and Anthropic SDKs against the demo through the proxy, with no key of any
/// vendor: Chat Completions and Responses, Messages, each whole and streamed; a `[demo:503]`
/// is healed on the way; the streamed conversations are recorded as sessions.
#[test]
fn the_openai_and_anthropic_sdks_are_answered_by_the_demo() {
    let (omni, address) = demo_with_proxy();
    let script = format!(
        r#"
import anthropic, openai
o = openai.OpenAI(base_url="http://{address}/v1", api_key="any-key", max_retries=0)
r = o.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": "chat whole"}}])
print("CHAT:", r.choices[0].message.content)
s = o.chat.completions.create(model="gpt-4o", stream=True,
    messages=[{{"role": "user", "content": "chat stream [demo:503]"}}])
print("CHATSTREAM:", "".join(c.choices[0].delta.content or "" for c in s if c.choices))
r = o.responses.create(model="gpt-4o", input="responses whole")
print("RESP:", r.output_text)
with o.responses.stream(model="gpt-4o", input="responses stream") as s:
    print("RESPSTREAM:", s.get_final_response().output_text)
a = anthropic.Anthropic(base_url="http://{address}", api_key="any-key", max_retries=0)
m = a.messages.create(model="claude-sonnet-4-5", max_tokens=100,
    messages=[{{"role": "user", "content": "messages whole"}}])
print("MSG:", m.content[0].text)
with a.messages.stream(model="claude-sonnet-4-5", max_tokens=100,
        messages=[{{"role": "user", "content": "messages stream [demo:think]"}}]) as s:
    final = s.get_final_message()
    print("MSGSTREAM:", [b.type for b in final.content], final.content[-1].text)
"#
    );
    let stdout = run_python(&["-"], Some(&script));
    for (label, prompt) in [
        ("CHAT:", "chat whole"),
        ("CHATSTREAM:", "chat stream [demo:503]"),
        ("RESP:", "responses whole"),
        ("RESPSTREAM:", "responses stream"),
        ("MSG:", "messages whole"),
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_default();
        assert!(
            line.contains(&format!("You said: \"{prompt}\"")),
            "{label} {stdout}"
        );
    }
    let streamed = stdout
        .lines()
        .find(|l| l.starts_with("MSGSTREAM:"))
        .unwrap();
    assert!(streamed.contains("['thinking', 'text']"), "{stdout}");
    // The overload was healed by omnid, not by the SDK (its retries are off).
    let status = proxy_status(&omni);
    assert!(status["healed"].as_u64().unwrap() >= 1, "{status}");
    // The streamed conversations are recorded, each API's apart.
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let origins: Vec<String> = sessions["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["origin"].as_str().map(str::to_string))
        .collect();
    for api in ["openai", "anthropic"] {
        assert!(
            origins.iter().any(|o| o.contains(api)),
            "{api}: {origins:?}"
        );
    }
}

#[test]
fn the_demo_says_it_sets_the_files_providers_aside() {
    let omni = Omni::builder()
        .config("[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n")
        .args(&["--demo"])
        .start();
    omni.ctl(&["status"]).ok();
    let said = omni.daemon_stderr();
    assert!(
        said.contains("the configuration's [providers.*] tables (local) are set aside"),
        "{said}"
    );
}
