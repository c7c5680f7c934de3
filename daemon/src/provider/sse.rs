//! An incremental Server-Sent Events parser for the answer stream.
//!
//! Bytes go in as they arrive from the network; complete events' `data` come out. Lines end
//! with `\n` or `\r\n`; an empty line ends an event; multiple `data:` lines are joined with
//! `\n`; comments and other fields are ignored. Written here rather than taken from a crate
//! because we need to know one thing most SSE crates hide: whether the body ended *inside*
//! an event, which for Gemini means the stream was cut.

/// A stream that is not valid SSE.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// The body ended in the middle of an event.
    #[error("the stream ended in the middle of an event")]
    Truncated,
    /// A line was not UTF-8.
    #[error("the stream carried a line that is not UTF-8")]
    NotUtf8,
}

/// Incremental SSE parser state.
#[derive(Debug, Default)]
pub struct SseParser {
    pending: Vec<u8>,
    data: Option<String>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the data of every event they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, SseError> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(offset) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset;
            let line = &self.pending[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = std::str::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
            if let Some(event) = take_line(&mut self.data, line) {
                events.push(event);
            }
            start = end + 1;
        }
        self.pending.drain(..start);
        Ok(events)
    }

    /// Call when the body ends: fails if it ended inside an event.
    pub fn finish(&self) -> Result<(), SseError> {
        let only_blank = self.pending.iter().all(|&b| b == b'\r');
        if self.data.is_some() || !only_blank {
            return Err(SseError::Truncated);
        }
        Ok(())
    }
}

/// Applies one line to the event being built; returns the event's data if the line ends it.
fn take_line(data: &mut Option<String>, line: &str) -> Option<String> {
    if line.is_empty() {
        return data.take();
    }
    if line.starts_with(':') {
        return None;
    }
    let (field, value) = line.split_once(':').unwrap_or((line, ""));
    if field == "data" {
        let value = value.strip_prefix(' ').unwrap_or(value);
        match data {
            Some(data) => {
                data.push('\n');
                data.push_str(value);
            }
            None => *data = Some(value.to_string()),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_blank_lines() {
        let mut p = SseParser::new();
        let got = p.push(b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n").unwrap();
        assert_eq!(got, vec!["{\"a\":1}", "{\"b\":2}"]);
        p.finish().unwrap();
    }

    #[test]
    fn crlf_is_tolerated() {
        let mut p = SseParser::new();
        let got = p.push(b"data: x\r\n\r\ndata: y\r\n\r\n").unwrap();
        assert_eq!(got, vec!["x", "y"]);
        p.finish().unwrap();
    }

    #[test]
    fn events_may_arrive_one_byte_at_a_time() {
        let input = "data: {\"text\":\"h\u{e9}llo\"}\r\n\r\n: comment\n\ndata: two\n\n";
        let mut p = SseParser::new();
        let mut got = Vec::new();
        for byte in input.as_bytes() {
            got.extend(p.push(std::slice::from_ref(byte)).unwrap());
        }
        assert_eq!(got, vec!["{\"text\":\"h\u{e9}llo\"}", "two"]);
        p.finish().unwrap();
    }

    #[test]
    fn multi_line_data_is_joined() {
        let mut p = SseParser::new();
        assert_eq!(
            p.push(b"data: a\ndata: b\nid: 3\n\n").unwrap(),
            vec!["a\nb"]
        );
    }

    #[test]
    fn a_body_that_ends_inside_an_event_is_truncated() {
        let mut p = SseParser::new();
        assert!(p.push(b"data: {\"a\":1}\n\ndata: {\"b\"").unwrap().len() == 1);
        assert_eq!(p.finish(), Err(SseError::Truncated));
        let mut p = SseParser::new();
        p.push(b"data: {\"a\":1}\n").unwrap();
        assert_eq!(
            p.finish(),
            Err(SseError::Truncated),
            "no blank line after the data"
        );
    }
}
