//! `omnid --demo`: a small, deterministic model that answers over real HTTP on 127.0.0.1 in
//! Gemini's wire format, so the quick start runs a real session (the store, the provider,
//! the stream parser, the retry loop, the fallback chain) with no key and no network. It
//! echoes the prompt (or the function results) and says how much context it was sent, a
//! word per chunk (`answer.rs`); a tag in the prompt asks for a trick instead
//! (`tricks.rs`). It serves every path the proxy forwards, in Gemini's, OpenAI's and
//! Anthropic's formats (`routes.rs`).

mod answer;
mod anthropic;
mod openai;
mod routes;
mod tricks;
mod turns;
mod wire;

use std::net::SocketAddr;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, ModelList};
use crate::listeners;
use crate::provider::{Kind, Provider};

/// The model name the demo answers as.
pub const MODEL: &str = "omni-demo";

/// The demo's fallback model: asked when [`MODEL`] is out of quota (`[demo:fallback]`).
pub const FALLBACK_MODEL: &str = "omni-demo-lite";

/// The demo model's input window, in tokens, as its model resource reports it: small, so
/// a demo session's context gauge moves visibly and the wall is reachable by hand.
pub const WINDOW: u64 = 32_768;

/// The fallback model's input window: half the demo model's, as a lite model's often is.
pub const FALLBACK_WINDOW: u64 = 16_384;

/// The input window the demo reports for `model`: [`WINDOW`], [`FALLBACK_WINDOW`] for
/// [`FALLBACK_MODEL`].
pub fn window_of(model: &str) -> u64 {
    if model == FALLBACK_MODEL {
        FALLBACK_WINDOW
    } else {
        WINDOW
    }
}

/// The demo model, listening on 127.0.0.1.
pub struct DemoModel {
    addr: SocketAddr,
}

impl DemoModel {
    /// Starts answering on an ephemeral port of 127.0.0.1, until `shutdown`.
    pub async fn start(
        tracker: &TaskTracker,
        shutdown: CancellationToken,
    ) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let app = routes::router();
        let rules = listeners::Rules {
            name: "the demo model",
            head_timeout: std::sync::Arc::new(|| std::time::Duration::from_secs(10)),
            cap: None,
        };
        listeners::spawn(listener, app, rules, tracker, shutdown);
        Ok(Self { addr })
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Points a configuration at the demo model, whatever the file says: its URL, its model
/// name and its fallback, and no key (a real key has no business going to it); an
/// `openai` and an `anthropic` provider at its other APIs, so the proxy's every API
/// answers; no other provider (the file's are set aside, with a warning).
pub fn point_at(config: &mut Config, url: &str) {
    config.provider.default = Provider {
        name: Kind::Gemini.as_str().into(),
        kind: Kind::Gemini,
        base_url: url.to_string(),
        api_key: None,
    };
    if !config.provider.named.is_empty() {
        let names: Vec<&str> = config
            .provider
            .named
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        tracing::warn!(
            "demo mode: the configuration's [providers.*] tables ({}) are set aside; the demo \
             model answers as gemini, openai and anthropic",
            names.join(", ")
        );
    }
    config.provider.named = vec![
        Provider {
            name: Kind::OpenAi.as_str().into(),
            kind: Kind::OpenAi,
            base_url: format!("{url}/openai/v1"),
            api_key: None,
        },
        Provider {
            name: Kind::Anthropic.as_str().into(),
            kind: Kind::Anthropic,
            base_url: format!("{url}/anthropic"),
            api_key: None,
        },
    ];
    config.provider.model = MODEL.into();
    config.provider.fallback = vec![FALLBACK_MODEL.into()];
    config.provider_entries.clear();
    // What --print-config and diagnostics show says the same.
    config.settings.provider = Kind::Gemini.as_str().into();
    config.settings.base_url = Some(url.to_string());
    config.settings.model = MODEL.into();
    config.settings.fallback = ModelList(vec![FALLBACK_MODEL.into()]);
    config.settings.api_key = None;
}

/// Points a configuration that will not run (`--print-config`) at the demo model, so it
/// shows what a demo daemon would use; the URL, known only once the model listens, is
/// left out (the printed header says where it will be).
pub fn describe(config: &mut Config) {
    point_at(config, "http://127.0.0.1");
    config.settings.base_url = None;
}
