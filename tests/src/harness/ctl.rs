//! What an `omnictl` run printed, read whole or line by line while it runs.

use std::io::{BufReader, Lines};
use std::process::{Child, ChildStdout};

use serde_json::Value;

/// What an `omnictl` run printed, and how it exited.
#[derive(Debug)]
pub struct CtlOutput {
    /// Exit code (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl CtlOutput {
    /// Asserts success, showing stderr if not; returns self for chaining.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(
            self.code, 0,
            "omnictl failed:\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts the exit code and that stderr says each of `words`; returns self.
    #[track_caller]
    pub fn fails(self, code: i32, words: &[&str]) -> Self {
        assert_eq!(
            self.code, code,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        for word in words {
            assert!(
                self.stderr.contains(word),
                "stderr lacks {word:?}:\n{}",
                self.stderr
            );
        }
        self
    }

    /// Stdout parsed as one JSON value.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    /// Stdout parsed as JSON lines.
    #[track_caller]
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }
}

/// An `omnictl --json ...` that is still running, read line by line as it prints.
pub struct RunningCtl {
    pub(super) child: Child,
    pub(super) lines: Lines<BufReader<ChildStdout>>,
    pub(super) seen: Vec<String>,
}

impl RunningCtl {
    /// Reads output until `n` `text` events have arrived; returns their texts. Blocks until
    /// they do, so it proves the client prints events as they arrive.
    #[track_caller]
    pub fn read_texts(&mut self, n: usize) -> Vec<String> {
        let mut texts = Vec::new();
        while texts.len() < n {
            let line = self
                .lines
                .next()
                .expect("omnictl ended before enough text arrived")
                .expect("omnictl's stdout");
            let event: Value = serde_json::from_str(&line).expect("a JSON line");
            if event["event"] == "text" {
                texts.push(event["text"].as_str().unwrap_or_default().to_string());
            }
            self.seen.push(line);
        }
        texts
    }

    /// Waits for the command to end; its stdout holds every line, read or not.
    pub fn finish(mut self) -> CtlOutput {
        let mut stdout: Vec<String> = std::mem::take(&mut self.seen);
        stdout.extend(self.lines.by_ref().map_while(Result::ok));
        let output = self.child.wait_with_output().expect("omnictl finishes");
        CtlOutput {
            code: output.status.code().unwrap_or(-1),
            stdout: stdout.iter().map(|l| format!("{l}\n")).collect(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}
