//! Running `omnid` from a test with nothing of the machine's configuration leaking in.

#![allow(dead_code)] // each test file uses what it needs

use std::process::{Command, Output};

/// Runs omnid with a private HOME and, unless the test names one, an empty configuration
/// file, so nothing on the machine leaks in.
pub fn omnid(args: &[&str], env: &[(&str, &str)]) -> Output {
    omnid_via(&[], args, env)
}

/// [`omnid`], started through `wrapper` (a command that runs the rest of its arguments).
pub fn omnid_via(wrapper: &[&str], args: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_omnid");
    let mut command = match wrapper.split_first() {
        Some((program, rest)) => {
            let mut command = Command::new(program);
            command.args(rest).arg(bin);
            command
        }
        None => Command::new(bin),
    };
    if !args.contains(&"--config") {
        command.args(["--config", "/dev/null"]);
    }
    command
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CREDENTIALS_DIRECTORY")
        .env_remove("RUNTIME_DIRECTORY")
        .env_remove("OMNI_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("GEMINI_API_KEY")
        .env_remove("OMNI_LOG")
        .env("HOME", dir.path())
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// What the process wrote to stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A configuration file holding `text` in `dir`; its path.
pub fn config_file(dir: &std::path::Path, text: &str) -> String {
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}
