//! Test support for Omni, shared by the end-to-end tests and the benches (never by the
//! product: neither binary depends on this crate):
//!
//! - [`fake_gemini`]: a small HTTP server on 127.0.0.1 that speaks Gemini's
//!   `streamGenerateContent` wire format and can inject faults on a schedule.
//! - [`fake_anthropic`]: the same for Anthropic's Messages API (streamed and not), with
//!   its checks.
//! - [`fake_openai`]: the same for OpenAI's streamed `chat/completions` and the Responses
//!   API, with their checks.
//! - `fake_wire`: what the fakes share (the record of a request, their HTTP/1.1, the
//!   [`fake_gemini::Gate`]) and, for their own tests, a real HTTP client.
//! - [`harness`]: starts the real `omnid` on a temporary socket and data directory and
//!   drives it with the real `omnictl` or the protocol client.
//! - [`local`]: a daemon with a fake OpenAI-compatible server as the provider `local`.
//! - [`openai_proxy`]: the proxy's OpenAI-compatible endpoint in front of that server.
//! - [`http`]: a real HTTP client for the daemon's HTTP API (JSON and server-sent events).
//! - [`raw`]: frames written and read by hand, for the protocol's edges.
//! - [`browser`]: headless Chromium over WebDriver, logged in to a daemon's web app.
//! - [`python`]: the Python interpreter the tests run (`OMNI_TEST_PYTHON`, else the
//!   virtual environment `scripts/test` makes).

mod background;
pub mod browser;
pub mod claude;
pub mod fake_anthropic;
pub mod fake_gemini;
pub mod fake_openai;
mod fake_wire;
pub use fake_wire::count_tokens;
pub mod harness;
pub mod http;
pub mod local;
pub mod openai_proxy;
pub mod postgres;
pub mod proxy;
pub mod python;
pub mod raw;
pub mod scenario;
pub mod terminal;
