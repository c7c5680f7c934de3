//! Tests of the transcript's rendering: reverted, compacted and summary entries.

use super::*;
use omni_proto::{Part, Role};

fn item(id: u64, role: Role, text: &str, reverted: bool) -> Entry {
    Entry {
        id,
        parent: id.checked_sub(1).filter(|p| *p > 0),
        role,
        text: text.into(),
        parts: vec![Part::text(text)],
        created_at_ms: 0,
        reverted,
        why_reverted: reverted.then_some(omni_proto::RevertReason::Undone),
        model: None,
        compacted: false,
        compaction: None,
        client_compaction: false,
    }
}

fn view(head: u64, entries: Vec<Entry>) -> HistoryView {
    HistoryView {
        usage: omni_proto::UsageTotals::default(),
        session: "s".into(),
        head,
        entries,
        damaged: None,
        context: context::tests::gauge(1_000, Some(100_000)),
        earlier: None,
    }
}

#[test]
fn reverted_entries_carry_the_plain_prefix_on_every_line() {
    let view = view(
        1,
        vec![
            item(1, Role::User, "hello", false),
            item(2, Role::Model, "line one\nline two", true),
        ],
    );
    let text = history(&view, &Style::new(false), Detail::default());
    assert_eq!(
        text,
        "session s · head #1 · context 1% of 100,000\n#1 user: hello\n[ REVERTED ] #2 model: line one\n[ REVERTED ]     line two\n"
    );
}

#[test]
fn colour_strikes_every_line_of_a_reverted_entry_through_to_its_end() {
    let style = Style::new(true);
    let text = entry(
        &item(2, Role::Model, "gone\nand this too", true),
        &style,
        Detail::default(),
    );
    assert_eq!(
        text,
        "\x1b[2;9m[ REVERTED ] #2 model: gone\x1b[0m\n\
         \x1b[2;9m[ REVERTED ]     and this too\x1b[0m\n",
        "no reset before the end of a line may switch the strike-through off"
    );
    let live = entry(
        &item(1, Role::User, "here", false),
        &style,
        Detail::default(),
    );
    assert_eq!(live, "#1 \x1b[1;36muser\x1b[0m: here\n");
}

fn answered_by(mut entry: Entry, provider: &str, model: &str) -> Entry {
    entry.model = Some(omni_proto::ModelInfo {
        model: model.into(),
        model_version: None,
        finish_reason: Some("STOP".into()),
        usage: None,
        attempts: 1,
        latency_ms: 0,
        interrupted: false,
        provider: provider.into(),
    });
    entry
}

#[test]
fn the_model_is_named_above_the_first_answer_and_wherever_it_changes() {
    let view = view(
        6,
        vec![
            item(1, Role::User, "a", false),
            answered_by(item(2, Role::Model, "b", false), "gemini", "flash"),
            item(3, Role::User, "c", false),
            answered_by(item(4, Role::Model, "d", false), "gemini", "flash"),
            item(5, Role::User, "e", false),
            answered_by(item(6, Role::Model, "f", false), "local", "qwen"),
        ],
    );
    let text = history(&view, &Style::new(false), Detail::default());
    assert_eq!(
        text,
        "session s · head #6 · context 1% of 100,000\n#1 user: a\n── model: gemini/flash ──\n#2 model: b\n\
         #3 user: c\n#4 model: d\n#5 user: e\n── model: local/qwen ──\n#6 model: f\n"
    );
}

#[test]
fn a_huge_entry_is_cut_with_a_note_on_how_to_see_it_whole() {
    let huge = "x".repeat(5_000_000);
    let detail = Detail {
        thoughts: false,
        cut: Some("--full shows it whole"),
    };
    let text = entry(
        &item(1, Role::User, &huge, false),
        &Style::new(false),
        detail,
    );
    assert!(text.len() < CUT_CHARS + 200, "{} bytes shown", text.len());
    assert!(text.starts_with(&format!("#1 user: {}\n", "x".repeat(CUT_CHARS))));
    assert!(
        text.ends_with(
            "\n    … cut here (4996000 more characters not shown; --full shows it whole)\n"
        ),
        "{}",
        &text[text.len() - 200..]
    );
    let many = "line\n".repeat(100);
    let text = entry(
        &item(1, Role::User, &many, false),
        &Style::new(false),
        detail,
    );
    assert_eq!(text.lines().count(), CUT_LINES + 1);
    assert!(
        text.contains("(160 more characters, 40 more lines not shown;"),
        "{text}"
    );
    let whole = entry(
        &item(1, Role::User, &huge, false),
        &Style::new(false),
        Detail::default(),
    );
    assert!(whole.len() > 5_000_000);
}

/// A session of two rounds compacted into node 5, a kept round (6, 7) and a new one.
fn compacted_session() -> HistoryView {
    let mut entries: Vec<Entry> = (1..=4)
        .map(|id| {
            let role = if id % 2 == 1 { Role::User } else { Role::Model };
            let mut entry = item(id, role, &format!("old {id}"), false);
            entry.compacted = true;
            entry
        })
        .collect();
    let mut summary = item(5, Role::Summary, "The user asked twice.", false);
    summary.parent = Some(7);
    summary.compaction = Some(omni_proto::Compaction {
        covers: vec![1, 2, 3, 4],
        resumes_at: Some(6),
        instructions: None,
    });
    entries.push(summary);
    entries.push(item(6, Role::User, "kept", false));
    entries.push(item(7, Role::Model, "kept too", false));
    view(7, entries)
}

#[test]
fn covered_entries_fold_into_one_line_and_the_summary_says_how_to_get_them_back() {
    let cut = Detail {
        thoughts: false,
        cut: Some("--full shows it whole"),
    };
    let text = history(&compacted_session(), &Style::new(false), cut);
    assert_eq!(
        text,
        "session s · head #7 · context 1% of 100,000\n\
         nodes 1–4 compacted into node 5: history --full shows them\n\
         ── summary of nodes 1–4 (compacted; `undo` right after it, or `checkout 7`, \
         returns to them) ──\n\
         #5 summary: The user asked twice.\n\
         #6 user: kept\n\
         #7 model: kept too\n"
    );
}

#[test]
fn in_full_covered_entries_are_marked_compacted_not_reverted() {
    let text = history(&compacted_session(), &Style::new(false), Detail::default());
    assert!(
        text.contains("[ COMPACTED ] #1 user: old 1\n[ COMPACTED ] #2 model: old 2\n"),
        "{text}"
    );
    assert!(!text.contains(REVERTED), "{text}");
    let coloured = entry(
        &compacted_session().entries[0],
        &Style::new(true),
        Detail::default(),
    );
    assert_eq!(
        coloured, "\x1b[2m[ COMPACTED ] #1 user: old 1\x1b[0m\n",
        "dim, not struck through"
    );
}

#[test]
fn a_client_compaction_is_labelled_as_the_clients_and_a_warning_follows_the_header() {
    let mut prompt = item(1, Role::User, "Summary of our earlier chat", false);
    prompt.client_compaction = true;
    let mut view = view(1, vec![prompt]);
    view.context.warning = Some("the context is 85% full: omnictl compact".into());
    let text = history(&view, &Style::new(false), Detail::default());
    assert_eq!(
        text,
        "session s · head #1 · context 1% of 100,000\n\
         the context is 85% full: omnictl compact\n\
         #1 user (the client's own compaction of an earlier conversation): Summary of our \
         earlier chat\n"
    );
}

#[test]
fn each_summary_folds_its_own_run_when_a_summary_is_compacted_again() {
    let mut view = compacted_session();
    // A second compaction covers the first summary and the kept round: 5, 6, 7.
    for entry in &mut view.entries {
        entry.compacted = true;
    }
    let mut second = item(8, Role::Summary, "Shorter still.", false);
    second.parent = Some(5);
    second.compaction = Some(omni_proto::Compaction {
        covers: vec![5, 6, 7],
        resumes_at: None,
        instructions: None,
    });
    view.entries.push(second);
    view.head = 8;
    let cut = Detail {
        thoughts: false,
        cut: Some("--full shows it whole"),
    };
    let text = history(&view, &Style::new(false), cut);
    assert!(
        text.contains(
            "nodes 1–4 compacted into node 5: history --full shows them\n\
             nodes 5–7 compacted into node 8: history --full shows them\n\
             ── summary of nodes 5–7"
        ),
        "{text}"
    );
}
