//! The Python the tests run (the API example and the official Gemini SDK): the one
//! `OMNI_TEST_PYTHON` names, else the private virtual environment `scripts/test` makes
//! under the target directory (with the SDKs in `tests/python-requirements.txt`), else
//! `python3` from PATH. A test that cannot run it fails, naming `scripts/test`.

use std::path::PathBuf;

/// The environment variable naming the Python interpreter the tests run.
pub const PYTHON_ENV: &str = "OMNI_TEST_PYTHON";

/// The virtual environment's directory under the target directory (`scripts/test`
/// makes it there).
pub const VENV_DIR: &str = "omni-test-python";

/// The Python interpreter to run.
pub fn python() -> PathBuf {
    if let Some(path) = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    target_dir()
        .map(|dir| dir.join(VENV_DIR).join("bin").join("python"))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The target directory the running test was built in (`target/<profile>/deps/TEST`).
fn target_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let mut dir = exe.parent()?.to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    Some(dir.parent()?.to_path_buf())
}

/// Runs the Python interpreter with `script` and its arguments.
pub fn command(script: &str) -> std::process::Command {
    let mut command = std::process::Command::new(python());
    command.arg(script);
    command
}

/// What a test says when Python or an SDK cannot be run.
pub fn hint() -> String {
    format!(
        "{} cannot run it: run the tests with `scripts/test`, which makes a virtual \
         environment with the SDKs the tests use (or set {PYTHON_ENV} to a Python that has them)",
        python().display()
    )
}

/// Asserts that `examples/python/gemini_sdk.py` had each of its calls answered (whole,
/// streamed, counted), from what it printed.
pub fn assert_sdk_example_answered(stdout: &str) {
    for line in [
        "whole: You said: \"hello from the SDK\"",
        "streamed: You said: \"and streamed\"",
        "tokens: ",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
}
