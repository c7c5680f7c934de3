//! `omnid --print-config`: the configuration a daemon would run with, resolved by the one
//! rule (flags, then the environment, then the file, then the defaults).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::Output;

use super::common::{config_file, omnid, stderr};

/// What `--print-config` printed, as TOML (it must have succeeded).
fn printed(output: &Output) -> toml::Value {
    assert!(output.status.success(), "{}", stderr(output));
    toml::from_str(&String::from_utf8_lossy(&output.stdout)).unwrap()
}

#[test]
fn flags_beat_the_environment_which_beats_the_file_which_beats_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let file = config_file(
        dir.path(),
        "socket = \"/from/file.sock\"\nmodel = \"file-model\"\nbase_url = \"http://file.example\"\n\
         [retry]\nmax_attempts = 7\n",
    );
    let out = omnid(
        &["--config", &file, "--print-config", "--model", "flag-model"],
        &[("OMNI_SOCKET", "/from/env.sock")],
    );
    let config = printed(&out);
    assert_eq!(
        config["model"].as_str(),
        Some("flag-model"),
        "flag over file"
    );
    assert_eq!(
        config["socket"].as_str(),
        Some("/from/env.sock"),
        "environment over file"
    );
    assert_eq!(
        config["base_url"].as_str(),
        Some("http://file.example"),
        "file over default"
    );
    assert_eq!(config["retry"]["max_attempts"].as_integer(), Some(7));
    assert_eq!(
        config["store"]["cache_mb"].as_integer(),
        Some(2),
        "sled's page cache is small by default"
    );
    let out = omnid(
        &["--config", &file, "--print-config", "--store-cache-mb", "8"],
        &[],
    );
    assert_eq!(printed(&out)["store"]["cache_mb"].as_integer(), Some(8));
    assert_eq!(
        config["retry"]["initial_delay_ms"].as_integer(),
        Some(1000),
        "default"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("# configuration file: {file}")),
        "{text}"
    );
}

/// `--demo --print-config` shows what a demo daemon runs with: the demo model and its
/// fallback, whatever the file names.
#[test]
fn demo_print_config_shows_the_demo_model_and_its_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "model = \"gemini-2.5-pro\"\n").unwrap();
    let file = file.to_str().unwrap();
    let out = omnid(
        &[
            "--config",
            file,
            "--demo",
            "--print-config",
            "--socket",
            "/tmp/x.sock",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("model = \"omni-demo\""), "{printed}");
    assert!(
        printed.contains("fallback = [\"omni-demo-lite\"]"),
        "{printed}"
    );
    assert!(
        printed.contains("the bundled demo model answers"),
        "{printed}"
    );
    assert!(!printed.contains("gemini-2.5"), "{printed}");
}
