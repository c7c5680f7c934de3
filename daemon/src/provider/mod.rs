//! Model providers: a model context goes in, a stream of parts comes out.
//!
//! Three families speak to the outside: Gemini (`streamGenerateContent`, `gemini/`),
//! OpenAI-compatible servers (`/chat/completions`: OpenAI, Ollama, llama.cpp, vLLM,
//! OpenRouter, ..., `openai/`) and Anthropic (`/v1/messages`, `anthropic/`). Each is a folder with its client, its wire format and its
//! error shape, and a [`Family`](family::Family) that the rest of the daemon asks through
//! [`Kind::family`]; the files at this level are neutral. Stored parts are
//! provider-neutral; each family renders them to its wire format and reads its stream back
//! into them ([`StreamUpdate`]). This module (and only this one) talks HTTP, and it is the
//! one boundary where what an API says enters the daemon: every provider error is stripped
//! of the key here (an API may echo it back), so no later path can leak it.

pub mod anthropic;
mod body;
mod client;
mod elide;
pub mod error;
pub mod family;
mod fragment;
pub mod gemini;
mod http;
pub mod key;
pub mod kind;
pub mod openai;
pub mod providers;
mod redact;
pub mod request;
mod secrets;
pub mod signs;
pub mod sse;
pub mod stream;

pub use body::RequestBody;
pub use error::{Phase, ProviderError};
pub use fragment::{Extras, Fragment, RequestOptions, WireRole};
pub use http::{http_client, status_error};
pub use key::{ApiKey, bearer_token};
pub use kind::Kind;
pub use providers::{Provider, ProviderConfig, UnknownProvider};
pub use redact::Redactor;
pub use request::{Target, assemble, body, fragment, fragments};
pub use secrets::RedactedStderr;
pub use stream::{ModelApi, StreamUpdate};
