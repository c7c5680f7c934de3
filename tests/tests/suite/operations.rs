//! Omni as a well-mannered systemd service: socket activation, sd_notify (ready, status,
//! watchdog, stopping), and configuration reloads on SIGHUP.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use omni_proto::{Ping, Reply, RequestFrame, Response, ResponseFrame, frame};
use omni_tests::fake_gemini::Reply as FakeReply;
use omni_tests::harness::{Notifications, Omni, Signal};
use omni_tests::raw;
use serde_json::Value;

const EXIT_WAIT: Duration = Duration::from_secs(15);

#[test]
fn a_socket_handed_over_by_systemd_is_used_and_never_unlinked() {
    let mut omni = Omni::builder().socket_activated().start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "hi"]).ok();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["socket"], omni.socket.display().to_string());
    let log = omni.daemon_stderr();
    assert!(
        log.contains("using the socket systemd handed over"),
        "{log}"
    );
    assert!(
        log.contains("using the API socket systemd handed over"),
        "{log}"
    );
    let sessions = omni.api().get("/v1/sessions");
    assert_eq!(
        sessions.json()["sessions"].as_array().map(Vec::len),
        Some(1)
    );
    omni.signal(Signal::TERM);
    let exit = omni.wait_exit(EXIT_WAIT).expect("omnid exits");
    assert!(exit.success(), "{exit}");
    assert!(
        omni.socket.exists(),
        "the socket belongs to systemd and stays"
    );
    assert!(omni.socket.with_file_name("api.sock").exists());
}

#[test]
fn systemd_hears_ready_status_watchdog_and_stopping() {
    let notifications = Notifications::bind();
    let mut omni = Omni::builder()
        .env("NOTIFY_SOCKET", notifications.path().to_str().unwrap())
        .env("WATCHDOG_USEC", "200000")
        .start();

    let ready = notifications.wait_for("READY=1");
    assert!(
        ready.contains("STATUS=0 sessions, 0 sends in flight, breakers closed"),
        "{ready}"
    );
    // READY=1 means the socket accepts.
    UnixStream::connect(&omni.socket).unwrap();
    omni.ctl(&["new"]).ok();
    let status = notifications.wait_for_line_starting("STATUS=1 sessions");
    assert!(status.contains("breakers closed"), "{status}");
    notifications.wait_for("WATCHDOG=1");

    omni.signal(Signal::TERM);
    notifications.wait_for("STOPPING=1");
    assert!(omni.wait_exit(EXIT_WAIT).unwrap().success());
}

/// Polls `status` until `field` reaches `value` (bounded).
fn wait_for_status(omni: &Omni, field: &str, value: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = omni.ctl(&["--json", "status"]).ok().json();
        if status[field] == value {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "{field} never reached {value}: {status}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sighup_reloads_the_retry_policy_and_an_invalid_file_changes_nothing() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let mut held = raw::connect_with_hello(&omni.socket);
    omni.ctl(&["new"]).ok();
    let overloaded = || FakeReply::error(503, "UNAVAILABLE", "The model is overloaded.");
    omni.fake().push([overloaded()]);
    omni.ctl(&["send", "one attempt only"])
        .fails(1, &["HTTP 503"]);
    assert_eq!(omni.fake().request_count(), 1);

    std::fs::write(
        &omni.config_path,
        "[retry]\nmax_attempts = 3\ninitial_delay_ms = 10\n",
    )
    .unwrap();
    omni.signal(Signal::HUP);
    let status = wait_for_status(&omni, "config_reloads", 1);
    assert_eq!(
        status["config_file"],
        omni.config_path.display().to_string()
    );
    let text = omni.ctl(&["status"]).ok().stdout;
    let line = format!(
        "config:   {} (1 reload applied, 0 rejected)",
        omni.config_path.display()
    );
    assert!(text.contains(&line), "{text}");
    omni.fake().push([overloaded()]);
    omni.ctl(&["send", "now with retries"]).ok();
    assert_eq!(
        omni.fake().request_count(),
        3,
        "the failed attempt was retried"
    );

    std::fs::write(
        &omni.config_path,
        "[retry]\nmax_attempts = 1\nbogus = true\n",
    )
    .unwrap();
    omni.signal(Signal::HUP);
    wait_for_status(&omni, "config_reload_failures", 1);
    let log = omni.daemon_stderr();
    assert!(log.contains("configuration reload failed"), "{log}");
    assert!(log.contains("unknown field `bogus`"), "{log}");
    omni.fake().push([overloaded()]);
    omni.ctl(&["send", "the old policy stays"]).ok();
    assert_eq!(omni.fake().request_count(), 5);

    // The connection opened before the reloads is still served.
    let ping = frame::encode(&RequestFrame {
        id: 1,
        request: Ping.into(),
    })
    .unwrap();
    raw::write_frame(&mut held, &ping);
    let answer: ResponseFrame = frame::decode(&raw::read_frame(&mut held).unwrap()).unwrap();
    assert_eq!(answer.response, Response::Reply(Reply::Pong));
}

#[test]
fn a_configuration_file_created_after_start_is_loaded_by_sighup_and_status_says_so() {
    let omni = Omni::builder().discovered_config().start();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert!(status["config_file"].is_null(), "{status}");
    assert!(
        omni.ctl(&["status"])
            .ok()
            .stdout
            .contains("config:   no file")
    );

    std::fs::create_dir_all(omni.config_path.parent().unwrap()).unwrap();
    std::fs::write(
        &omni.config_path,
        "max_connections = 3\n[retry]\nmax_attempts = 2\n",
    )
    .unwrap();
    omni.signal(Signal::HUP);
    let status = wait_for_status(&omni, "config_reloads", 1);
    let path = omni.config_path.display().to_string();
    assert_eq!(status["config_file"], path.as_str());
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(
        text.contains(&format!("config:   {path} (1 reload applied, 0 rejected)")),
        "{text}"
    );
    let log = omni.daemon_stderr();
    assert!(
        log.contains(
            "max_connections changed in the configuration; that takes effect at the next restart"
        ),
        "{log}"
    );
}
