//! Writing to stdout without panicking when the reader goes away (`omnictl history | head`).

use std::io::{self, Write};

fn write(text: &str) {
    let mut out = io::stdout().lock();
    let result = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Err(error) = result {
        if error.kind() == io::ErrorKind::BrokenPipe {
            // The reader has all it wanted; that is success for us.
            std::process::exit(0);
        }
        eprintln!("omnictl: cannot write to stdout: {error}");
        std::process::exit(1);
    }
}

/// Prints text as is (no newline added), flushed at once: used for streamed answers.
pub fn print(text: &str) {
    write(text);
}

/// Prints a line.
pub fn line(text: &str) {
    write(&format!("{text}\n"));
}

/// Prints a value as one line of JSON.
pub fn json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(text) => line(&text),
        Err(error) => eprintln!("omnictl: cannot encode JSON: {error}"),
    }
}
