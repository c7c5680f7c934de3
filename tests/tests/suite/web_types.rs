//! The web app is type-checked: TypeScript's `tsc --noEmit -p daemon/web` passes on every
//! module (JSDoc types, `daemon/web/tsconfig.json`), each module asks for the check, and
//! `daemon/web/js/api-types.js` is what `scripts/web-types.mjs` makes of
//! `docs/openapi.json`. The tsc is the one `OMNI_TEST_TSC` names, else the one
//! `scripts/test` installs under the target directory (tests/node-requirements.txt).
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The environment variable naming the tsc to run.
const TSC_ENV: &str = "OMNI_TEST_TSC";

/// Where `scripts/test` installs the npm packages, under the target directory.
const NODE_DIR: &str = "omni-test-node";

/// The repository's root (the test crate sits in `tests/`).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The tsc to run: `OMNI_TEST_TSC`, else `scripts/test`'s, next to this test's build.
fn tsc() -> PathBuf {
    if let Some(path) = std::env::var_os(TSC_ENV).filter(|path| !path.is_empty()) {
        return PathBuf::from(path);
    }
    // The test runs as target/<profile>/deps/all-HASH.
    let exe = std::env::current_exe().unwrap();
    let target = exe.ancestors().nth(3).unwrap();
    target.join(NODE_DIR).join("node_modules/.bin/tsc")
}

/// Runs `program` with `args` in the repository's root; a program that cannot be started
/// fails the test with `install`, what would install it.
fn run(program: &Path, args: &[&str], install: &str) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e}): {install}", program.display()))
}

/// What a failed command printed, both streams.
fn printed(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_web_app_type_checks() {
    let tsc = tsc();
    let install = format!(
        "run the tests with `scripts/test`, which installs TypeScript in the target \
         directory's {NODE_DIR} (or set {TSC_ENV} to a tsc)"
    );
    let output = run(&tsc, &["--noEmit", "-p", "daemon/web"], &install);
    assert!(
        output.status.success(),
        "`tsc --noEmit -p daemon/web` found errors in the web app:\n{}",
        printed(&output)
    );
}

#[test]
fn the_api_types_follow_the_openapi_document() {
    let output = run(
        Path::new("node"),
        &["scripts/web-types.mjs", "--check"],
        "install Node (`scripts/test` does)",
    );
    assert!(
        output.status.success(),
        "daemon/web/js/api-types.js is stale:\n{}",
        printed(&output)
    );
}

#[test]
fn every_web_module_asks_for_the_type_check() {
    let dir = repo().join("daemon/web/js");
    let mut unchecked = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "js") {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.lines().next() != Some("// @ts-check") {
                unchecked.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    unchecked.sort();
    assert!(
        unchecked.is_empty(),
        "modules of daemon/web/js that do not start with `// @ts-check`: {unchecked:?}"
    );
}
