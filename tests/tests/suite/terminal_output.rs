//! What `omnictl` prints at a real pseudo-terminal of a given size, and piped: long output
//! through the pager whatever makes it long, huge entries cut with a note, retry notices
//! wrapped at words, `branches` and `--tree` fitted to the width, the recovery menu
//! without twin rows, and Tab completing node numbers and session ids.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::terminal::plain;

const NO_COLOR: &[(&str, &str)] = &[("NO_COLOR", "1")];

// Widths below are counted in characters: everything these tests print is one column a
// character.

/// A pager that records what it was given in `file` (and shows nothing).
fn recording_pager(omni: &Omni, file: &std::path::Path) -> String {
    let script = omni.dir().join("record-pager");
    std::fs::write(&script, "#!/bin/sh\ncat > \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{} {}", script.display(), file.display())
}

/// The lines a terminal shows, escapes removed, each as it stands after its last `\r`.
fn rows(screen: &str) -> Vec<String> {
    plain(screen)
        .split('\n')
        .map(|line| line.rsplit('\r').find(|s| !s.is_empty()).unwrap_or(""))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_huge_entry_is_cut_with_a_note_and_long_output_is_paged_at_a_terminal_and_piped() {
    // A window that takes the 5 MB prompt (by the estimate, 1,310,720 tokens).
    let omni = Omni::builder()
        .config("[windows]\n\"fake-model\" = 2000000\n")
        .start();
    let id = omni.new_session();
    let huge = "x".repeat(5 * 1024 * 1024);
    omni.fake()
        .push([Reply::Answer(Answer::text(["a short answer"]))]);
    omni.ctl_with_stdin(&["send", "-s", &id, "-"], Some(&huge))
        .ok();
    let paged = omni.dir().join("paged.txt");
    let pager = recording_pager(&omni, &paged);
    let env = [("NO_COLOR", "1"), ("PAGER", pager.as_str())];

    let terminal = omni.ctl_in_terminal(&["history", "-s", &id], &env);
    let (code, screen) = terminal.wait_for_all();
    assert_eq!(code, 0, "{}", plain(&screen));
    assert!(
        screen.len() < 10_000,
        "nothing huge reaches the terminal itself"
    );
    let given = std::fs::read_to_string(&paged).unwrap();
    assert!(given.len() < 20_000, "the pager got {} bytes", given.len());
    assert!(given.contains("#1 user: xxxx"), "{given}");
    assert!(
        given
            .contains("more characters not shown; omnictl history --full shows every entry whole)"),
        "{given}"
    );

    std::fs::remove_file(&paged).unwrap();
    let full = omni.ctl_in_terminal(&["history", "-s", &id, "--full"], &env);
    assert_eq!(full.wait(), 0);
    let given = std::fs::metadata(&paged).unwrap().len();
    assert!(given > 5 * 1024 * 1024, "--full pages the prompt whole");

    std::fs::remove_file(&paged).unwrap();
    let piped = omni.ctl(&["history", "-s", &id]).ok();
    assert!(piped.stdout.len() < 20_000, "{} bytes", piped.stdout.len());
    assert!(
        piped
            .stdout
            .contains("omnictl history --full shows every entry whole"),
        "{}",
        piped.stdout
    );
    let piped_full = omni.ctl(&["history", "-s", &id, "--full"]).ok();
    assert!(piped_full.stdout.len() > 5 * 1024 * 1024);
    assert!(!paged.exists(), "piped output never goes through the pager");
}

#[test]
fn a_few_lines_longer_than_the_screen_once_wrapped_go_through_the_pager() {
    let omni = Omni::start();
    let id = omni.new_session();
    for word in ["alpha ", "beta "] {
        let prompt = word.repeat(1500 / word.len());
        omni.ctl(&["send", "-s", &id, &prompt]).ok();
    }
    let paged = omni.dir().join("paged.txt");
    let pager = recording_pager(&omni, &paged);
    let env = [("NO_COLOR", "1"), ("PAGER", pager.as_str())];
    // Five lines, about 60 rows at 100 columns: taller than the 40-row screen.
    let terminal = omni.ctl_in_terminal(&["history", "-s", &id], &env);
    assert_eq!(terminal.wait(), 0);
    let given = std::fs::read_to_string(&paged).unwrap_or_default();
    assert!(given.contains("#4 model: You said"), "{given:?}");
}

#[test]
fn retry_notices_wrap_at_words_to_the_terminal_width() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 2\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    omni.fake().push([omni_tests::scenario::overloaded()]);
    let mut send = omni.ctl_in_terminal_sized(&["send", "-s", &id, "hi"], NO_COLOR, (60, 40));
    send.expect("You said");
    let (code, screen) = send.wait_for_all();
    assert_eq!(code, 0);
    let rows = rows(&screen);
    let first = rows
        .iter()
        .position(|r| r.contains("attempt 1/2 failed"))
        .unwrap();
    let last = first
        + rows[first..]
            .iter()
            .position(|r| r.contains("retrying in"))
            .unwrap();
    let notice = &rows[first..=last];
    for row in notice {
        assert!(
            row.chars().count() <= 60,
            "{row:?} is wider than the terminal"
        );
    }
    assert!(
        notice
            .join(" ")
            .contains("The model is overloaded. Please try again later"),
        "{notice:?}"
    );
}

/// A session with two branches whose last lines are long.
fn two_long_branches(omni: &Omni) -> String {
    let id = omni.new_session();
    let long = "a long question about many things ".repeat(6);
    omni.ctl(&["send", "-s", &id, &long]).ok();
    omni.ctl(&["back", "-s", &id]).ok();
    omni.ctl(&["send", "-s", &id, &format!("another {long}")])
        .ok();
    id
}

#[test]
fn branches_rows_fit_the_terminal_width() {
    let omni = Omni::start();
    let id = two_long_branches(&omni);
    let branches = omni.ctl_in_terminal_sized(&["branches", "-s", &id], NO_COLOR, (80, 40));
    let (code, screen) = branches.wait_for_all();
    assert_eq!(code, 0);
    let listed: Vec<String> = rows(&screen)
        .into_iter()
        .filter(|r| r.contains(" turns "))
        .collect();
    assert_eq!(listed.len(), 2, "{listed:?}");
    for row in &listed {
        assert!(
            row.chars().count() <= 80,
            "{row:?} is wider than the terminal"
        );
        assert!(row.contains('…'), "{row:?} says it is cut");
    }
    assert!(listed.iter().any(|r| r.contains("(head)")), "{listed:?}");
}

#[test]
fn the_tree_uses_the_terminal_width() {
    let omni = Omni::start();
    let id = two_long_branches(&omni);
    let tree = omni.ctl_in_terminal_sized(
        &["history", "-s", &id, "--tree", "--no-pager"],
        NO_COLOR,
        (120, 40),
    );
    let (code, screen) = tree.wait_for_all();
    assert_eq!(code, 0);
    let drawn = rows(&screen);
    let prompt = drawn
        .iter()
        .find(|r| r.contains("#3 user: another"))
        .unwrap();
    assert!(
        (110..=120).contains(&prompt.chars().count()),
        "{prompt:?} should fill the 120 columns"
    );
    for row in drawn.iter().filter(|r| r.contains('#')) {
        assert!(row.chars().count() <= 120, "{row:?}");
    }
}

#[test]
fn the_recovery_menu_shows_ways_out_that_do_the_same_once() {
    let omni = Omni::start();
    let id = omni.new_session();
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    omni.ctl(&["send", "-s", &id, "hello"]);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("this session needs recovery");
    let menu = chat.expect("Esc leave");
    assert!(
        menu.contains("deep rollback / clear turn (takes #1 out of the context)"),
        "{menu}"
    );
    assert_eq!(
        menu.matches("(takes #1 out of the context)").count(),
        1,
        "{menu}"
    );
    chat.send("\r");
    chat.expect("recovered · head: ");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    let view = omni.history_of(&id);
    assert_eq!(view["head"], 0);
}

#[test]
fn tab_completes_node_numbers_and_session_ids() {
    let omni = Omni::start();
    let other = omni.new_session();
    let id = omni.new_session();
    omni.ctl(&["send", "-s", &id, "first question"]).ok();
    omni.ctl(&["send", "-s", &id, "second question"]).ok();
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    // A second Tab lists the nodes with what each is.
    chat.send("/checkout \t\t");
    chat.expect("3 user: second question");
    chat.expect("1 user: first question");
    chat.send("3\r");
    chat.expect("second question");
    chat.expect("› ");
    chat.send(&format!("/switch {}\t", &other[..6]));
    chat.expect(&format!("/switch {other}"));
    chat.send("\r");
    chat.expect(&format!("session {}", &other[..8]));
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    assert_eq!(omni.history_of(&id)["head"], 3);
}
