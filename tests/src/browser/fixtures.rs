//! Sessions made quickly for the browser tests and the web bench: a long session imported
//! from an export of a short one, and many empty sessions made over the HTTP API.

use serde_json::{Value, json};

use super::WebOmni;

impl WebOmni {
    /// A session of `rounds` prompt-and-answer rounds, imported from an export made by
    /// repeating a real one-round session's nodes and moves (the prompts read `a question
    /// worth asking (N)`, N from 0); returns its id. The one-round session it was made
    /// from stays as it is.
    #[track_caller]
    pub fn session_of(&self, rounds: u64) -> String {
        let omni = &self.omni;
        let seed = omni.new_session();
        omni.ctl(&["send", "-s", &seed, "a question worth asking"])
            .ok();
        let file = omni.dir().join(format!("export-{rounds}.json"));
        let path = file.to_str().expect("a UTF-8 temporary path");
        omni.ctl(&[
            "export", "-s", &seed, "--format", "json", "-o", path, "--force",
        ])
        .ok();
        let text = std::fs::read_to_string(&file).expect("the export");
        let mut export: Value = serde_json::from_str(&text).expect("the export is JSON");
        let (prompt, answer) = (export["nodes"][0].clone(), export["nodes"][1].clone());
        let (asked, answered) = (export["moves"][0].clone(), export["moves"][1].clone());
        let mut nodes = Vec::new();
        let mut moves = Vec::new();
        for round in 0..rounds {
            let (user, model) = (2 * round + 1, 2 * round + 2);
            nodes.push(node(&prompt, user, user - 1, round));
            nodes.push(node(&answer, model, user, round));
            moves.push(step(&asked, 2 * round + 1, user - 1, user));
            moves.push(step(&answered, 2 * round + 2, user, model));
        }
        export["nodes"] = json!(nodes);
        export["moves"] = json!(moves);
        export["head"] = json!(2 * rounds);
        export["title"] = json!(format!("{rounds} rounds"));
        std::fs::write(&file, export.to_string()).expect("write the long export");
        let imported = omni.ctl(&["--json", "import", path]).ok().json();
        imported["sessions"][0]["session"]
            .as_str()
            .unwrap_or_else(|| panic!("the import names its session: {imported}"))
            .to_string()
    }

    /// Makes `count` empty sessions over the HTTP API (`POST /v1/sessions`); returns their
    /// ids, oldest first.
    #[track_caller]
    pub fn empty_sessions(&self, count: usize) -> Vec<String> {
        let api = self.omni.api();
        (0..count)
            .map(|_| {
                let reply = api.post("/v1/sessions", "{}");
                assert_eq!(reply.status, 201, "{}", reply.body);
                reply.json()["session"]
                    .as_str()
                    .unwrap_or_else(|| panic!("a new session's id: {}", reply.body))
                    .to_string()
            })
            .collect()
    }
}

/// The exported node `template` renumbered as node `id` under `parent`, its time moved on
/// and its text marked with `round`.
fn node(template: &Value, id: u64, parent: u64, round: u64) -> Value {
    let mut node = template.clone();
    node["id"] = json!(id);
    node["parent"] = json!(parent);
    let created = template["created_at_ms"].as_u64().unwrap_or_default();
    node["created_at_ms"] = json!(created + id * 1000);
    if let Some(text) = node["parts"][0]["content"]["text"].as_str() {
        node["parts"][0]["content"]["text"] = json!(format!("{text} ({round})"));
    }
    node
}

/// The exported move `template` renumbered as move `seq` from `from` to `to`.
fn step(template: &Value, seq: u64, from: u64, to: u64) -> Value {
    let mut step = template.clone();
    step["seq"] = json!(seq);
    step["from"] = json!(from);
    step["to"] = json!(to);
    step
}
