//! JSON Lines as the tools write them: one record a line, appended as the conversation goes,
//! so a crash can leave the last line cut short. Each line is parsed on its own; a line that
//! is not JSON is reported with its number and skipped, and a cut last line is named as the
//! crash artefact it is.

use serde_json::Value;

use super::{Input, Warning};

/// One parsed line.
pub(crate) struct Record {
    /// Its line number, from 1.
    pub line: usize,
    /// Its JSON.
    pub value: Value,
}

/// Every line of `text` that parses as a JSON object, with a warning for each that does not.
pub(crate) fn records(source: &Input<'_>, text: &str) -> (Vec<Record>, Vec<Warning>) {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let ends_whole = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len();
    for (index, line) in lines.into_iter().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) if value.is_object() => records.push(Record {
                line: number,
                value,
            }),
            Ok(_) => warnings.push(source.warn(Some(number), "not a JSON object; skipped")),
            Err(_) if number == last && !ends_whole => warnings.push(source.warn(
                Some(number),
                "the last line is cut short (the file was being written when its writer \
                 stopped); skipped",
            )),
            Err(error) => {
                warnings.push(source.warn(Some(number), format!("not JSON ({error}); skipped")))
            }
        }
    }
    (records, warnings)
}

/// The first `count` lines of `text` that parse as JSON objects (for telling formats apart).
pub(crate) fn first_records(text: &str, count: usize) -> Vec<Value> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .take(count)
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(Value::is_object)
        .collect()
}

/// Milliseconds since the epoch of an RFC 3339 time (`2025-06-01T10:00:00.123Z`), if it is one.
pub(crate) fn time_ms(value: &Value) -> Option<u64> {
    let text = value.as_str()?;
    let stamp: jiff::Timestamp = text.parse().ok()?;
    u64::try_from(stamp.as_millisecond()).ok()
}

/// `value` as text: a string as it is, anything else as its JSON.
pub(crate) fn text_or_json(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::import::Source;

    fn source() -> Input<'static> {
        Input {
            path: Path::new("f.jsonl"),
            tool: Source::Codex,
        }
    }

    #[test]
    fn a_cut_last_line_is_named_and_a_bad_middle_line_skipped() {
        let text = "{\"a\":1}\nnot json\n[1]\n{\"b\":2}\n{\"c\":";
        let (records, warnings) = records(&source(), text);
        assert_eq!(records.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 4]);
        let lines: Vec<_> = warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(5)]);
        assert!(warnings[0].message.starts_with("not JSON"));
        assert!(
            warnings[2].message.contains("cut short"),
            "{:?}",
            warnings[2]
        );
    }

    #[test]
    fn a_bad_last_line_that_ends_in_a_newline_is_not_called_cut() {
        let (_, warnings) = records(&source(), "{\"a\":1}\n{oops\n");
        assert!(warnings[0].message.starts_with("not JSON"));
    }

    #[test]
    fn times_read_as_milliseconds() {
        let value = Value::from("2025-06-01T10:00:00.123Z");
        assert_eq!(time_ms(&value), Some(1_748_772_000_123));
        assert_eq!(time_ms(&Value::from("yesterday")), None);
    }
}
