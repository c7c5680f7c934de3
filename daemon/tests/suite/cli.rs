//! `omnid`'s command line: bad configuration fails at once with a clear message.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use super::common::{config_file, omnid, omnid_via, stderr};

#[test]
fn version_and_help() {
    let out = omnid(&["--version"], &[]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("omnid {}", env!("CARGO_PKG_VERSION"))
    );
    let help = String::from_utf8_lossy(&omnid(&["--help"], &[]).stdout).into_owned();
    for flag in [
        "--socket",
        "--data-dir",
        "--log-dir",
        "--base-url",
        "--model",
        "--demo",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn no_socket_path_is_a_clear_error() {
    let out = omnid(&[], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no socket path: pass --socket PATH"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_key_that_cannot_be_sent_is_refused() {
    let out = omnid(
        &["--socket", "/tmp/unused.sock"],
        &[("GEMINI_API_KEY", "abc\ndef")],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("GEMINI_API_KEY is not usable"), "{text}");
    assert!(!text.contains("abc"), "the key is never printed: {text}");
}

#[test]
fn nonsense_limits_are_refused() {
    let out = omnid(
        &["--socket", "/tmp/unused.sock", "--max-connections", "0"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--max-connections must be at least 1"));
}

#[test]
fn something_that_is_not_a_socket_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omnid.sock");
    std::fs::write(&path, "not a socket").unwrap();
    let data = dir.path().join("data");
    let out = omnid(
        &[
            "--socket",
            path.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not a socket; refusing to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a socket");
}

#[test]
fn an_unknown_key_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = config_file(dir.path(), "modle = \"typo\"\n");
    let out = omnid(&["--config", &file, "--print-config"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("unknown field `modle`"), "{text}");
    assert!(text.contains(&file), "the file is named: {text}");
}

#[test]
fn a_missing_configuration_file_that_was_asked_for_is_an_error() {
    let out = omnid(
        &["--config", "/nonexistent/omni.toml", "--print-config"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read the configuration file /nonexistent/omni.toml"));
}

#[test]
fn a_key_file_readable_by_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("gemini.key");
    std::fs::write(&key, "AIza-secret-from-file\n").unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let file = config_file(
        dir.path(),
        &format!(
            "socket = \"/s.sock\"\napi_key_file = \"{}\"\n",
            key.display()
        ),
    );
    let out = omnid(&["--config", &file, "--print-config"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("is readable by others (mode 644)"), "{text}");
    assert!(text.contains("chmod 600"), "{text}");
    assert!(!text.contains("AIza-secret"), "{text}");

    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = omnid(&["--config", &file, "--print-config"], &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!(
            "# API key: set, from api_key_file {}",
            key.display()
        )),
        "{text}"
    );
    assert!(
        !text.contains("AIza-secret"),
        "the key itself is never printed: {text}"
    );
}

#[test]
fn the_systemd_credential_is_a_key_source() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gemini_api_key"), "AIza-from-credential").unwrap();
    let out = omnid(
        &["--socket", "/s.sock", "--print-config"],
        &[("CREDENTIALS_DIRECTORY", dir.path().to_str().unwrap())],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("# API key: set, from the systemd credential"),
        "{text}"
    );
    assert!(!text.contains("AIza-from-credential"), "{text}");
}

#[test]
fn the_man_page_is_generated_from_the_flags() {
    let out = omnid(&["--print-man"], &[]);
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.lines().any(|l| l.starts_with(".TH omnid 1")), "{page}");
    assert!(page.contains("\\-\\-retry\\-max\\-attempts"), "{page}");
}

#[test]
fn a_data_directory_that_is_a_file_is_named_as_such_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, "mine").unwrap();
    let socket = dir.path().join("omnid.sock");
    let out = omnid(
        &[
            "--socket",
            socket.to_str().unwrap(),
            "--data-dir",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("it is a file, not a directory; pass --data-dir with a directory"),
        "{text}"
    );
    assert!(!text.contains("File exists"), "{text}");
    assert_eq!(
        text.matches("cannot open the store").count(),
        1,
        "printed once: {text}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn a_data_directory_omnid_may_not_enter_says_so_once_with_advice() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let data = locked.join("data");
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let socket = run.join("omnid.sock");
    let args = [
        "--socket",
        socket.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
    ];
    let out = if rustix::process::geteuid().is_root() {
        // Root may enter anything, so the daemon runs as nobody: it may pass through the
        // test's directory and owns its socket's, but `locked` is root's alone.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
        std::os::unix::fs::chown(&run, Some(65534), Some(65534)).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
        let nobody = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ];
        omnid_via(&nobody, &args, &[])
    } else {
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        omnid(&args, &[])
    };
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("cannot open the store in"), "{text}");
    assert!(
        text.contains("permission denied (omnid runs as uid"),
        "{text}"
    );
    assert!(text.contains("chown -R"), "{text}");
    assert_eq!(
        text.to_lowercase().matches("permission denied").count(),
        1,
        "{text}"
    );
}

#[test]
fn an_invalid_log_filter_is_reported_not_ignored() {
    let out = omnid(
        &["--socket", "/s.sock", "--print-config"],
        &[("OMNI_LOG", "info,[")],
    );
    assert!(out.status.success());
    let text = stderr(&out);
    assert!(
        text.contains("OMNI_LOG=\"info,[\" is not a valid log filter"),
        "{text}"
    );
}

#[test]
fn a_socket_directory_that_another_user_owns_is_refused() {
    // `/` belongs to root and only root may write it: safe for root's own daemon, not for
    // anyone else's (root could replace the socket). As root, the daemon runs as nobody.
    let args = [
        "--socket",
        "/omni-never-bound.sock",
        "--data-dir",
        "/nonexistent",
    ];
    let out = if rustix::process::geteuid().is_root() {
        let nobody = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ];
        omnid_via(&nobody, &args, &[])
    } else {
        omnid(&args, &[])
    };
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("refusing to listen: the socket's directory / belongs to uid 0"),
        "{text}"
    );
    assert!(!std::path::Path::new("/omni-never-bound.sock").exists());
}
