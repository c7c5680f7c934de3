//! `omnictl resume [ID]`: lift a suspension after repeated failed sends.

use omni_proto::Resume;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

pub async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let request = Resume {
        session: session.to_ref(),
    };
    let resumed = ctx.ask(request).await?;
    let session = &resumed.session;
    if ctx.json {
        output::json(&resumed);
    } else if resumed.was_suspended {
        output::line(&format!(
            "session {session} resumed; sends are accepted again"
        ));
    } else {
        output::line(&format!(
            "session {session} was not suspended; nothing to do"
        ));
    }
    Ok(())
}

/// `omnictl resume`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The session to resume [default: -s, else the most recently used session]
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let session = SessionArg {
            session: self.id.or(self.session.session),
        };
        run(ctx, &session).await
    }
}
