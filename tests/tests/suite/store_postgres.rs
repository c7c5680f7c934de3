//! The shared store: omnid keeps its sessions in a PostgreSQL database of the tests' own
//! (`--store-url`, the password in `--store-password-file`), a second omnid on another
//! data directory sees the same history, the password is never printed, and a database
//! whose schema is newer than omnid knows, a wrong password, an unreachable database or a
//! password file others may read stops the start with the reason.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use omni_tests::harness::{Omni, omnid_bin};
use omni_tests::postgres::PgCluster;
use serde_json::Value;

/// (role, text) of every entry of a session's history.
pub fn turns(omni: &Omni, session: &str) -> Vec<(String, String)> {
    let history: Value = omni.history_of(session);
    history["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            let text = e["text"].as_str().unwrap_or_default().to_string();
            (e["role"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

/// Runs `work` with a client of the cluster's database (tests that look inside it or
/// alter it).
pub fn on_database<T>(cluster: &PgCluster, work: impl AsyncFnOnce(&tokio_postgres::Client) -> T) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut config: tokio_postgres::Config = cluster.url().parse().unwrap();
        config.password(cluster.password());
        let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        work(&client).await
    })
}

/// Runs one statement on the cluster.
fn sql(cluster: &PgCluster, statement: &str) {
    on_database(cluster, async |client| client.batch_execute(statement).await.unwrap());
}

#[test]
fn sessions_live_in_the_shared_database_and_a_second_omnid_sees_them() {
    let cluster = PgCluster::start();
    let mut first = cluster.omnid("first").start();
    let session = first.new_session();
    first.ctl(&["send", "hello from the first machine"]).ok();
    let said = turns(&first, &session);
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(said[0].1, "hello from the first machine");

    let status = first.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["store_kind"], "postgres");
    let url = status["store_url"].as_str().unwrap();
    assert!(url.contains(&format!("127.0.0.1:{}", cluster.port())), "{url}");
    assert!(!status["instance"].as_str().unwrap().is_empty(), "{status}");
    let text = first.ctl(&["status"]).ok().stdout;
    assert!(text.contains(&format!("store:    postgres {url}, as ")), "{text}");
    first.stop();
    first.restart();
    assert_eq!(turns(&first, &session), said, "kept across a restart");

    first.ctl(&["send", "--session", &session, "the first's session is loaded"]).ok();
    let second = cluster.omnid("second").start();
    assert_eq!(turns(&second, &session).len(), 4, "the same history on another omnid");
    second.ctl(&["send", "--session", &session, "and from the second"]).ok();
    assert_eq!(turns(&first, &session).len(), 6, "the first sees the second's turn");

    // The first's actor was loaded before the second's turn: the session is read again
    // before its next send, which follows the whole history.
    first.ctl(&["send", "--session", &session, "from the first again"]).ok();
    let all = turns(&second, &session);
    assert_eq!(all.len(), 8, "{all:?}");
    assert_eq!(
        (all[4].1.as_str(), all[6].1.as_str()),
        ("and from the second", "from the first again")
    );

    for omni in [&first, &second] {
        let stderr = omni.daemon_stderr();
        assert!(!stderr.contains(cluster.password()), "{stderr}");
    }
}

#[test]
fn the_password_is_never_printed_and_a_newer_schema_stops_the_start() {
    let cluster = PgCluster::start();
    let password = cluster.password_file();
    let with_password = cluster.url().replace("omni@", &format!("omni:{}@", cluster.password()));
    let secrets = tempfile::tempdir().unwrap();
    let socket = secrets.path().join("omnid.sock").display().to_string();
    let printed = std::process::Command::new(omnid_bin())
        .args(["--print-config", "--socket", &socket, "--store-url", &with_password])
        .args(["--instance-name", "the-laptop"])
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout).to_string();
    assert!(printed.contains("store_url = \"postgres://omni:***@127.0.0.1"), "{printed}");
    assert!(!printed.contains(cluster.password()), "{printed}");
    assert!(printed.contains("instance_name = \"the-laptop\""), "{printed}");

    let mut omni = cluster.omnid("only").start();
    omni.stop();
    sql(&cluster, "UPDATE omni_schema SET version = 99");
    let said = refused_start(&cluster.url(), &password);
    // Both versions named: the database's, and the newest this omnid knows.
    let known = said.split("newer than this omnid knows (").nth(1).unwrap_or_default();
    assert!(said.contains("schema version 99"), "{said}");
    assert!(known.split(')').next().unwrap_or_default().parse::<u32>().is_ok_and(|v| v < 99), "{said}");
    assert!(said.contains(&format!("127.0.0.1:{}", cluster.port())), "{said}");
}

#[test]
fn a_database_that_goes_away_fails_a_send_naming_it_and_is_used_again_when_back() {
    let cluster = PgCluster::start();
    let omni = cluster.omnid("only").start();
    let session = omni.new_session();
    omni.ctl(&["send", "before"]).ok();
    cluster.stop();
    let store = format!("127.0.0.1:{}", cluster.port());
    let away = omni.ctl(&["send", "while it is away"]);
    assert_ne!(away.code, 0, "{}", away.stdout);
    assert!(away.stderr.contains(&store), "{}", away.stderr);
    assert!(!away.stderr.contains(cluster.password()), "{}", away.stderr);
    cluster.restart();
    omni.ctl(&["send", "after"]).ok();
    let said: Vec<String> = turns(&omni, &session).into_iter().map(|t| t.1).collect();
    assert_eq!(said.len(), 4, "{said:?}");
    assert_eq!((said[0].as_str(), said[2].as_str()), ("before", "after"));
}

/// Starts omnid on `url` with the password in `password`, expecting it to stop; its
/// standard error.
fn refused_start(url: &str, password: &Path) -> String {
    let data = tempfile::tempdir().unwrap();
    let started = std::process::Command::new(omnid_bin())
        .arg("--store-url")
        .arg(url)
        .arg("--store-password-file")
        .arg(password)
        .arg("--data-dir")
        .arg(data.path())
        .arg("--socket")
        .arg(data.path().join("omnid.sock"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&started.stderr).to_string();
    assert!(!started.status.success(), "{said}");
    said
}

#[test]
fn a_wrong_password_or_an_unreachable_database_stops_the_start_with_the_reason() {
    let cluster = PgCluster::start();
    let secrets = tempfile::tempdir().unwrap();
    let wrong = secrets.path().join("wrong-password");
    std::fs::write(&wrong, "not-the-password").unwrap();
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).unwrap();
    let said = refused_start(&cluster.url(), &wrong);
    assert!(said.contains("password authentication failed"), "{said}");
    assert!(said.contains(&format!("127.0.0.1:{}", cluster.port())), "{said}");
    assert!(!said.contains("not-the-password"), "{said}");

    let nowhere = cluster.url().replace(&cluster.port().to_string(), "1");
    let said = refused_start(&nowhere, &wrong);
    assert!(said.contains("the store at") && said.contains("127.0.0.1:1/"), "{said}");

    let open = secrets.path().join("readable-password");
    std::fs::write(&open, cluster.password()).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    let said = refused_start(&cluster.url(), &open);
    assert!(said.contains("readable by others"), "{said}");
}
