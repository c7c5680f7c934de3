//! A real pseudo-terminal for tests of what a person at a terminal sees: the program runs
//! on the pty's far side (so it sees a terminal on stdin, stdout and stderr), keys are
//! written to it, and the screen's bytes are read back as they come.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long [`Terminal::expect`] waits for text before failing the test.
const PATIENCE: Duration = Duration::from_secs(20);

/// Everything the program has written so far, and a signal when more arrives.
type Screen = Arc<(Mutex<Vec<u8>>, Condvar)>;

/// A program running at a terminal.
pub struct Terminal {
    writer: Box<dyn Write + Send>,
    screen: Screen,
    /// How far [`Terminal::expect`] has read.
    seen: usize,
    child: Box<dyn Child + Send + Sync>,
    /// The thread copying the program's output into `screen`; it ends once every process
    /// at the terminal has closed it.
    reader: Option<std::thread::JoinHandle<()>>,
    _master: Box<dyn MasterPty + Send>,
}

/// Removes ANSI escape sequences (colours, cursor moves), leaving the text.
pub fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() || c == '~' {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

impl Terminal {
    /// Starts `program ARGS` at a 100×40 terminal with `env` added (and `TERM=xterm`).
    pub fn spawn(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn_sized(program, args, env, (100, 40))
    }

    /// Starts `program ARGS` at a terminal of `(columns, rows)` with `env` added (and
    /// `TERM=xterm`).
    pub fn spawn_sized(
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        (cols, rows): (u16, u16),
    ) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.env("TERM", "xterm");
        command.env_remove("NO_COLOR");
        command.env_remove("OMNI_SOCKET");
        for (name, value) in env {
            command.env(name, value);
        }
        let child = pty
            .slave
            .spawn_command(command)
            .expect("start at the terminal");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("read the terminal");
        let writer = pty.master.take_writer().expect("write to the terminal");
        let screen: Screen = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let filled = screen.clone();
        let reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let (bytes, more) = &*filled;
                bytes
                    .lock()
                    .expect("screen lock")
                    .extend_from_slice(&buffer[..n]);
                more.notify_all();
            }
        });
        Self {
            writer,
            screen,
            seen: 0,
            child,
            reader: Some(reader),
            _master: pty.master,
        }
    }

    /// Types `keys` (`\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D, `\x1b[A` ↑ ...).
    pub fn send(&mut self, keys: &str) {
        self.writer
            .write_all(keys.as_bytes())
            .and_then(|()| self.writer.flush())
            .expect("type at the terminal");
    }

    /// Everything shown so far, escapes included.
    pub fn raw(&self) -> String {
        let bytes = self.screen.0.lock().expect("screen lock");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Waits until `text` appears (escapes removed) after what earlier calls matched;
    /// returns the screen from there up to and including it. Fails the test after 20 s
    /// with everything shown.
    #[track_caller]
    pub fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        let (bytes, more) = &*self.screen;
        let mut shown = bytes.lock().expect("screen lock");
        loop {
            let fresh = String::from_utf8_lossy(&shown[self.seen.min(shown.len())..]).into_owned();
            let visible = plain(&fresh);
            if let Some(at) = visible.find(text) {
                // Advance past the raw bytes that hold the match.
                let mut consumed = 0;
                for (i, _) in fresh.char_indices() {
                    if plain(&fresh[..i]).len() >= at + text.len() {
                        consumed = i;
                        break;
                    }
                    consumed = fresh.len();
                }
                self.seen += consumed;
                return visible[..at + text.len()].to_string();
            }
            let now = Instant::now();
            assert!(
                now < deadline,
                "the terminal never showed {text:?}; it showed:\n{}",
                plain(&String::from_utf8_lossy(&shown))
            );
            shown = more
                .wait_timeout(shown, deadline - now)
                .expect("screen lock")
                .0;
        }
    }

    /// Waits for the program to exit; returns its exit code. Fails the test after 20 s
    /// with everything shown.
    #[track_caller]
    pub fn wait(mut self) -> u32 {
        self.exit_code()
    }

    /// Waits for the program to exit and for everything it wrote to be read; returns its
    /// exit code and all it showed, escapes included.
    #[track_caller]
    pub fn wait_for_all(mut self) -> (u32, String) {
        let code = self.exit_code();
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the terminal's reader");
        }
        (code, self.raw())
    }

    #[track_caller]
    fn exit_code(&mut self) -> u32 {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("the program's status") {
                return status.exit_code();
            }
            assert!(
                Instant::now() < deadline,
                "the program did not exit; it showed:\n{}",
                plain(&self.raw())
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
