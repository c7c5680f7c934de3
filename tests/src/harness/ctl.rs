//! Running the real `omnictl` against a test daemon, and what it printed, read whole or
//! line by line while it runs.

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use serde_json::Value;

use super::{Omni, omnictl_bin};
use crate::terminal::Terminal;

impl Omni {
    /// Runs `omnictl --socket S ARGS...`.
    pub fn ctl(&self, args: &[&str]) -> CtlOutput {
        self.ctl_with_stdin(args, None)
    }

    /// Creates a session with `omnictl new`; returns its id.
    #[track_caller]
    pub fn new_session(&self) -> String {
        let created = self.ctl(&["--json", "new"]).ok().json();
        created["session"].as_str().unwrap_or_default().to_string()
    }

    /// A session's whole transcript, as `omnictl --json history -s ID` prints it.
    #[track_caller]
    pub fn history_of(&self, session: &str) -> Value {
        self.ctl(&["--json", "history", "-s", session]).ok().json()
    }

    /// Runs `omnictl` with the given standard input, in this daemon's temporary directory.
    pub fn ctl_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> CtlOutput {
        let mut child = Command::new(omnictl_bin())
            .current_dir(self.dir())
            .arg("--socket")
            .arg(&self.socket)
            .args(args)
            .env_remove("OMNI_SOCKET")
            .env("NO_COLOR", "1")
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("omnictl starts");
        if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(input.as_bytes())
                .expect("write omnictl's stdin");
        }
        let output = child.wait_with_output().expect("omnictl finishes");
        CtlOutput {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs `omnictl --socket S ARGS` at a real terminal (through `script(1)`), typing
    /// `input`; returns whether it succeeded and everything the terminal showed.
    pub fn ctl_at_terminal(&self, args: &str, input: &str) -> (bool, String) {
        let command = format!(
            "{} --socket {} {args}",
            omnictl_bin().display(),
            self.socket.display()
        );
        let mut child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("NO_COLOR", "1")
            .env_remove("OMNI_SOCKET")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script(1) runs");
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(input.as_bytes())
                .expect("type into the terminal");
        }
        let output = child.wait_with_output().expect("script(1) finishes");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    }

    /// Starts `omnictl --socket S ARGS...` at a real pseudo-terminal, with its prompt
    /// history kept in the test's directory (`XDG_STATE_HOME`) and `env` added.
    pub fn ctl_in_terminal(&self, args: &[&str], env: &[(&str, &str)]) -> Terminal {
        self.ctl_in_terminal_sized(args, env, (100, 40))
    }

    /// Starts `omnictl ARGS...` at a terminal of `(columns, rows)`, as
    /// [`Omni::ctl_in_terminal`] does.
    pub fn ctl_in_terminal_sized(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        size: (u16, u16),
    ) -> Terminal {
        let socket = self.socket.display().to_string();
        let state = self.dir().join("state").display().to_string();
        let mut full = vec!["--socket", socket.as_str()];
        full.extend_from_slice(args);
        let mut all_env = vec![("XDG_STATE_HOME", state.as_str())];
        all_env.extend_from_slice(env);
        Terminal::spawn_sized(&omnictl_bin(), &full, &all_env, size)
    }

    /// Starts `omnictl --json ARGS...` and returns it while it runs.
    pub fn spawn_ctl(&self, args: &[&str]) -> RunningCtl {
        let mut child = Command::new(omnictl_bin())
            .arg("--socket")
            .arg(&self.socket)
            .arg("--json")
            .args(args)
            .env_remove("OMNI_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("omnictl starts");
        let stdout = child.stdout.take().expect("a piped stdout");
        RunningCtl {
            child,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
        }
    }
}

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

    /// Reads JSON lines until an event named `name` has arrived; returns every event read,
    /// that one last. Blocks until it does.
    #[track_caller]
    pub fn read_until(&mut self, name: &str) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let line = self
                .lines
                .next()
                .unwrap_or_else(|| panic!("omnictl ended before a {name} event; saw {events:?}"))
                .expect("omnictl's stdout");
            let event: Value = serde_json::from_str(&line).expect("a JSON line");
            self.seen.push(line);
            let found = event["event"] == name;
            events.push(event);
            if found {
                return events;
            }
        }
    }

    /// Presses Ctrl-C: sends SIGINT to the running command.
    pub fn interrupt(&self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::INT)
            .expect("SIGINT is delivered");
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
