//! `omnictl new [--tools FILE] [--model REF] [--fallback REF,...] [--system TEXT]`: create a
//! session; print its id.

use std::path::{Path, PathBuf};

use omni_proto::NewSession;

use super::Ctx;
use crate::error::CtlError;
use crate::output;

/// What the new session starts with.
pub struct Asked<'a> {
    /// A file of function declarations.
    pub tools: Option<&'a Path>,
    /// Its model (`MODEL` or `PROVIDER/MODEL`); `None`: the daemon's.
    pub model: Option<String>,
    /// Its fallback chain; empty: the daemon's.
    pub fallback: Vec<String>,
    /// Its system instruction.
    pub system: Option<String>,
}

/// The request that creates a session with nothing of its own (the chat's `/new`).
pub fn plain() -> NewSession {
    NewSession {
        tools_json: None,
        model: None,
        fallback: Vec::new(),
        system: None,
    }
}

async fn run(ctx: &mut Ctx, asked: Asked<'_>) -> Result<(), CtlError> {
    let tools_json = asked
        .tools
        .map(|path| {
            std::fs::read_to_string(path).map_err(|e| {
                CtlError::usage(format!(
                    "cannot read the tools file {}: {e}",
                    path.display()
                ))
            })
        })
        .transpose()?;
    let request = NewSession {
        tools_json,
        model: asked.model,
        fallback: asked.fallback,
        system: asked.system,
    };
    let created = ctx.ask(request).await?;
    if ctx.json {
        output::json(&created);
    } else {
        output::line(&created.session);
    }
    Ok(())
}

/// `omnictl new`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A JSON array of function declarations (name, description, parameters) the
    /// model may call
    #[arg(long, value_name = "FILE")]
    pub tools: Option<PathBuf>,
    /// The model it asks: MODEL (of omnid's default provider) or PROVIDER/MODEL
    /// [default: omnid's --model]
    #[arg(long, value_name = "REF")]
    pub model: Option<String>,
    /// Models asked in turn, with the same context, when its own cannot answer (quota
    /// exhausted, circuit breaker open, overloaded) [default: omnid's --fallback]
    #[arg(long, value_name = "REF,...", value_delimiter = ',')]
    pub fallback: Vec<String>,
    /// A system instruction sent with every request of the session
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(
            ctx,
            Asked {
                tools: self.tools.as_deref(),
                model: self.model,
                fallback: self.fallback,
                system: self.system,
            },
        )
        .await
    }
}
