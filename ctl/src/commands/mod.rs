//! One file per subcommand; this module connects and dispatches.

mod branches;
mod demo;
mod history;
mod moves;
mod new;
mod send;
mod sessions;
mod status;

use std::path::PathBuf;

use omni_proto::{Client, Event, MoveOp, Reply, Request, SessionRef};

use crate::cli::{Cli, Command, SessionArg};
use crate::error::{CtlError, exit};

/// What every command needs: where the daemon is, the output mode, and a connection made
/// on first use.
pub struct Ctx {
    /// The daemon's socket.
    pub socket: PathBuf,
    /// `--json` was given.
    pub json: bool,
    client: Option<Client>,
}

impl Ctx {
    async fn client(&mut self) -> Result<&mut Client, CtlError> {
        if self.client.is_none() {
            let name = concat!("omnictl ", env!("CARGO_PKG_VERSION"));
            self.client = Some(Client::connect(&self.socket, name).await?);
        }
        self.client
            .as_mut()
            .ok_or_else(|| CtlError::failure("no connection to omnid"))
    }

    /// Sends a request, handing events to `on_event`, and returns the reply.
    pub async fn call(
        &mut self,
        request: Request,
        on_event: impl FnMut(Event),
    ) -> Result<Reply, CtlError> {
        Ok(self.client().await?.call(request, on_event).await?)
    }

    /// Sends a request that has no events.
    pub async fn ask(&mut self, request: Request) -> Result<Reply, CtlError> {
        self.call(request, |_| {}).await
    }
}

impl SessionArg {
    /// The session reference to send.
    pub fn to_ref(&self) -> SessionRef {
        match &self.session {
            Some(id) => SessionRef::Id(id.clone()),
            None => SessionRef::Current,
        }
    }
}

/// The error for a reply of the wrong kind (a daemon from another release, or a bug).
pub fn unexpected(reply: Reply) -> CtlError {
    CtlError::failure(format!("omnid sent an unexpected reply: {reply:?}"))
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<(), CtlError> {
    if let Command::Demo { keep } = cli.command {
        return demo::run(keep, cli.json).await;
    }
    let socket = omni_proto::resolve_socket_path(cli.socket).map_err(|e| CtlError {
        code: exit::UNREACHABLE,
        kind: None,
        message: e.to_string(),
    })?;
    let mut ctx = Ctx {
        socket,
        json: cli.json,
        client: None,
    };
    match cli.command {
        Command::New => new::run(&mut ctx).await,
        Command::Send { session, text } => send::run(&mut ctx, &session, &text).await,
        Command::History {
            session,
            active,
            thoughts,
        } => history::run(&mut ctx, &session, active, thoughts).await,
        Command::Undo { session } => moves::run(&mut ctx, &session, MoveOp::Undo).await,
        Command::Redo { session } => moves::run(&mut ctx, &session, MoveOp::Redo).await,
        Command::Back { session } => moves::run(&mut ctx, &session, MoveOp::Back).await,
        Command::Checkout { session, node } => {
            moves::run(&mut ctx, &session, MoveOp::Checkout { node }).await
        }
        Command::Branches { session } => branches::run(&mut ctx, &session).await,
        Command::Sessions => sessions::run(&mut ctx).await,
        Command::Status => status::run(&mut ctx).await,
        Command::Demo { .. } => Ok(()),
    }
}
