//! `omnictl chat` at a real pseudo-terminal: the line editor (history, multi-line, Ctrl-C,
//! Ctrl-D), Ctrl-C cancelling an answer, the spinner before the first token, the recovery
//! menu driven with arrow keys, and markdown rendering.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Gate, Reply};
use omni_tests::harness::Omni;
use omni_tests::scenario::{held_answer, poisoned_by_a_400};
use omni_tests::terminal::plain;

const NO_COLOR: &[(&str, &str)] = &[("NO_COLOR", "1")];

#[test]
fn the_line_editor_recalls_prompts_takes_multi_line_ones_and_leaves_on_ctrl_d() {
    let omni = Omni::start();
    let id = omni.new_session();
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("first question\r");
    chat.expect("You said: \"first question\".");
    chat.expect("› ");
    // ↑ brings the last prompt back; Enter sends it again.
    chat.send("\x1b[A\r");
    chat.expect("You said: \"first question\".");
    chat.expect("› ");
    chat.send("\"\"\"\rline one\rline two\r\"\"\"\r");
    chat.expect("line two\". I am");
    chat.expect("› ");
    // Alt-Enter puts a newline in the prompt.
    chat.send("alpha\x1b\rbeta\r");
    chat.expect("beta\". I am");
    chat.expect("› ");
    chat.send("\x03");
    chat.expect("(Ctrl-D or /quit leaves the chat)");
    chat.expect("› ");
    chat.send("\x04");
    assert_eq!(chat.wait(), 0);

    let view = omni.history_of(&id);
    let prompts: Vec<&str> = view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["role"] == "user")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        prompts,
        [
            "first question",
            "first question",
            "line one\nline two",
            "alpha\nbeta"
        ]
    );
    let file = omni.dir().join("state/omni/chat_history");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("first question"), "{kept}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "prompts are readable by their user only"
    );
}

#[test]
fn ctrl_c_cancels_the_answer_and_the_chat_goes_on() {
    let omni = Omni::start();
    let id = omni.new_session();
    let gate = held_answer(&omni);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("a long question\r");
    chat.expect("partial answer");
    chat.send("\x03");
    let said = chat
        .expect("the partial answer is kept as node 2 (interrupted, not in the context)")
        + &chat.expect("the prompt stays pending (/retry asks again, /back drops it)");
    assert!(
        !said.contains("out of the context;"),
        "said once, not twice: {said}"
    );
    chat.expect("› ");
    chat.send("/history\r");
    chat.expect("#2 model (interrupted): partial answer");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    gate.open();
    let view = omni.history_of(&id);
    assert_eq!(view["head"], 1, "the head stays on the prompt");
    assert_eq!(view["entries"][1]["why_reverted"], "interrupted");
}

#[test]
fn a_spinner_counts_while_the_first_token_is_awaited() {
    let omni = Omni::start();
    let id = omni.new_session();
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 0,
        gate: gate.clone(),
        answer: Answer::text(["here ", "at last"]),
    }]);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("slow one\r");
    chat.expect("waiting for the model · ");
    gate.open();
    chat.expect("here at last");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
}

#[test]
fn the_recovery_menu_opens_in_the_chat_and_takes_arrow_keys() {
    let omni = Omni::start();
    let (id, _) = poisoned_by_a_400(&omni, "weather?");
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("this session needs recovery");
    chat.expect("(takes #1, #2, #3 out of the context)");
    chat.expect("(takes #3 out of the context)");
    chat.expect("Esc leave");
    // ↓ to the second choice (clear turn), Enter.
    chat.send("\x1b[B");
    chat.send("\r");
    chat.expect("recovered · head: node 2");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    let view = omni.history_of(&id);
    assert_eq!(view["head"], 2);
    assert_eq!(view["entries"][2]["why_reverted"], "recovered");
}

fn markdown_answer(omni: &Omni) {
    omni.fake().push([Reply::Answer(Answer::text([
        "# Title\n",
        "Some **bold** words\n",
        "```\n",
        "let x = 1;\n",
        "```\n",
    ]))]);
}

#[test]
fn answers_are_rendered_as_markdown_on_a_colour_terminal_and_raw_on_request() {
    let omni = Omni::start();
    let id = omni.new_session();
    markdown_answer(&omni);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], &[]);
    chat.expect("Ctrl-D leaves");
    chat.send("show me\r");
    let shown = chat.expect("let x = 1;");
    chat.expect("› ");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    assert!(shown.contains("Title") && shown.contains("bold"), "{shown}");
    for marker in ["# Title", "**", "```"] {
        assert!(
            !shown.contains(marker),
            "{marker:?} is rendered away:\n{shown}"
        );
    }

    // Thoughts first: their `**` marks rendered away too, and the answer on its own line,
    // shown once.
    let mut thinking = Answer::text(["The answer is **42**.\n"]);
    thinking.thoughts = vec!["**Planning.** Count ".into(), "to forty-two.".into()];
    omni.fake().push([Reply::Answer(thinking)]);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], &[]);
    chat.expect("Ctrl-D leaves");
    chat.send("think\r");
    let shown = chat.expect("[node");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    let plain = omni_tests::terminal::plain(&shown);
    assert!(
        plain.contains("Planning. Count to forty-two.\r\n"),
        "{plain:?}"
    );
    assert!(!plain.contains("**"), "{plain:?}");
    assert_eq!(plain.matches("The answer is").count(), 1, "{plain:?}");

    markdown_answer(&omni);
    let mut raw = omni.ctl_in_terminal(&["chat", "-s", &id, "--raw"], &[]);
    raw.expect("Ctrl-D leaves");
    raw.send("again\r");
    let shown = raw.expect("```");
    assert!(
        shown.contains("# Title") && shown.contains("**bold**"),
        "{shown}"
    );
    raw.expect("let x = 1;");
    raw.send("/quit\r");
    assert_eq!(raw.wait(), 0);
}

#[test]
fn long_output_goes_through_the_pager_unless_told_not_to() {
    let omni = Omni::start();
    let id = omni.new_session();
    let prompts: String = (1..=25).map(|i| format!("question {i}\n")).collect();
    omni.ctl_with_stdin(&["chat", "-s", &id], Some(&prompts))
        .ok();
    let pager = [("NO_COLOR", "1"), ("PAGER", "sed s/^/paged:/")];
    let mut paged = omni.ctl_in_terminal(&["history", "-s", &id], &pager);
    paged.expect("paged:#50 model");
    assert_eq!(paged.wait(), 0);
    let mut direct = omni.ctl_in_terminal(&["history", "-s", &id, "--no-pager"], &pager);
    direct.expect("#50 model");
    let shown = plain(&direct.raw());
    assert_eq!(direct.wait(), 0);
    assert!(!shown.contains("paged:"), "{shown}");
}

#[test]
fn tab_completes_slash_commands() {
    let omni = Omni::start();
    let id = omni.new_session();
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("/hel\t\r");
    chat.expect("/quit                              leave the chat");
    chat.send("/recover cl\t");
    chat.expect("/recover clear");
    chat.send("\x03");
    chat.expect("(Ctrl-D or /quit leaves the chat)");
    chat.expect("› ");
    chat.send("\x04");
    assert_eq!(chat.wait(), 0);
}

#[test]
fn after_a_failure_a_new_prompt_asks_to_keep_or_replace_the_pending_one() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    omni.fake().push([
        omni_tests::scenario::overloaded(),
        omni_tests::scenario::overloaded(),
    ]);
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("first try\r");
    chat.expect("#1 stays pending: /retry sends it again as it is");
    chat.send("second try\r");
    chat.expect("#1 is still pending (unanswered): first try");
    // A command is not an answer: the chat says so and asks again.
    chat.send("/resume\r");
    chat.expect("/resume is a command, not an answer: answer k, r or c");
    chat.expect("cancel (c)? [k]");
    chat.send("k\r");
    chat.expect("#2 stays pending");
    chat.send("third try\r");
    chat.expect("#1, #2 are still pending (unanswered): second try");
    chat.send("r\r");
    chat.expect("sent in place of #1, #2, which stay in the tree, off the path");
    chat.expect("You said: \"third try\".");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    let view = omni
        .ctl(&["--json", "history", "--active", "-s", &id])
        .ok()
        .json();
    let texts: Vec<&str> = view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts[..1], ["third try"], "{texts:?}");
}

/// A prompt typed after leaving the recovery menu is stored in place of the rejected one
/// and answered; the menu never offers to take out the healthy turns before it.
#[test]
fn a_prompt_typed_after_leaving_the_recovery_menu_replaces_the_rejected_one() {
    let omni = Omni::start();
    let id = omni.new_session();
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("Ctrl-D leaves");
    chat.send("healthy\r");
    chat.expect("You said: \"healthy\".");
    chat.expect("› ");
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    chat.send("x\r");
    chat.expect("(takes #3 out of the context)");
    chat.expect("Esc leave");
    chat.send("\x1b");
    chat.expect("left as it is");
    chat.send("hello again\r");
    chat.expect("#3 failed and needs recovery: x");
    chat.send("r\r");
    chat.expect("sent in place of #3");
    chat.expect("You said: \"hello again\".");
    chat.expect("› ");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
    let view = omni.history_of(&id);
    let texts: Vec<(&str, bool)> = view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["text"].as_str().unwrap(), e["reverted"] == true))
        .collect();
    assert_eq!(texts[0], ("healthy", false), "{texts:?}");
    assert_eq!(
        texts[2],
        ("x", true),
        "the rejected prompt, off the path: {texts:?}"
    );
    assert_eq!(texts[3], ("hello again", false), "{texts:?}");
    assert_eq!(view["head"], 5);
    let summary = omni.ctl(&["--json", "sessions"]).ok().json();
    assert!(
        summary["sessions"][0]["needs_recovery"].is_null(),
        "{summary}"
    );
}

/// The third failure in a row suspends the session: the chat says what to do in its own
/// commands, on lines broken at words.
#[test]
fn suspension_advice_names_the_chats_commands() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    for _ in 0..2 {
        omni.fake().push([omni_tests::scenario::overloaded()]);
        omni.ctl(&["send", "-s", &id, "hello?"]);
    }
    omni.fake().push([omni_tests::scenario::overloaded()]);
    let mut chat = omni.ctl_in_terminal_sized(&["chat", "-s", &id], NO_COLOR, (60, 40));
    chat.expect("Ctrl-D leaves");
    chat.send("/retry\r");
    let said = chat.expect("`/resume`");
    assert!(!said.contains("omnictl resume"), "{said}");
    for line in said.lines() {
        // What a terminal shows of a line: what follows its last carriage return.
        let line = line.rsplit('\r').next().unwrap_or_default().trim_end();
        assert!(
            line.chars().count() <= 60,
            "a line wider than the terminal: {line:?}"
        );
    }
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
}

#[test]
fn a_suspended_session_offers_to_resume() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    for _ in 0..3 {
        omni.fake().push([omni_tests::scenario::overloaded()]);
        omni.ctl(&["send", "-s", &id, "hello?"]);
    }
    let mut chat = omni.ctl_in_terminal(&["chat", "-s", &id], NO_COLOR);
    chat.expect("resume it now? [Y/n]");
    chat.send("\r");
    chat.expect("resumed; sends are accepted again");
    chat.send("/retry\r");
    chat.expect("You said: \"hello?");
    chat.send("/quit\r");
    assert_eq!(chat.wait(), 0);
}
