//! From a request to its handler: the one table both edges (the socket and HTTP) use.

use omni_proto::{ErrorReply, Reply, Request};

use super::handlers::*;
use super::responder::Responder;
use crate::api::state::Daemon;

/// Runs one request; events go out through `responder` as they happen.
pub async fn dispatch(
    daemon: &Daemon,
    request: Request,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    match request {
        Request::Ping => Ok(Reply::Pong),
        Request::NewSession {
            tools_json,
            model,
            fallback,
            system,
        } => {
            let asked = new_session::Asked {
                tools_json,
                model,
                fallback,
                system,
            };
            new_session::handle(daemon, asked).await
        }
        Request::SetModel { session, model } => set_model::handle(daemon, &session, model).await,
        Request::Send {
            session,
            prompt,
            replace,
        } => {
            let prompt = send::NewPrompt {
                text: prompt,
                replace,
            };
            send::handle(daemon, &session, Some(prompt), responder).await
        }
        Request::History {
            session,
            active_only,
        } => history::handle(daemon, &session, active_only),
        Request::HistoryPage {
            session,
            active_only,
            before,
            limit,
        } => tree::history_page(daemon, &session, active_only, before, limit),
        Request::Tree { session } => tree::handle(daemon, &session),
        Request::Move { session, op } => moves::handle(daemon, &session, op).await,
        Request::Branches { session } => branches::handle(daemon, &session),
        Request::Sessions { query } => listing::handle(daemon, &query),
        Request::Status => status::handle(daemon),
        Request::WebLink => web_link::handle(daemon),
        Request::Usage {
            since_ms,
            by,
            session,
        } => usage::handle(
            daemon,
            usage::Asked {
                since_ms,
                by,
                session,
            },
        ),
        Request::Retry { session } => send::handle(daemon, &session, None, responder).await,
        Request::Resume { session } => resume::handle(daemon, &session).await,
        Request::ToolResult {
            session,
            call_id,
            name,
            response_json,
        } => tool_result::handle(daemon, &session, call_id, name, response_json, responder).await,
        Request::Recover { session, action } => {
            recover::handle(daemon, &session, action, responder).await
        }
        Request::Session { session } => session::handle(daemon, &session),
        Request::Compact {
            session,
            keep,
            instructions,
        } => compact::handle(daemon, &session, keep, instructions, responder).await,
        Request::ListErrors { session } => logs::list(daemon, session.as_ref()),
        Request::ExportLogs { session, error } => {
            logs::export(daemon, session.as_ref(), error.as_deref(), responder).await
        }
        Request::LogPath => Ok(logs::path(daemon)),
        Request::Replay { error } => replay::handle(daemon, &error).await,
        Request::Cancel { session } => cancel::handle(daemon, &session).await,
        Request::Attach { session } => attach::handle(daemon, &session, responder).await,
        Request::Export {
            session,
            format,
            all,
        } => export::handle(daemon, &session, format, all, responder).await,
        Request::ImportPart { upload, data } => import::stage(daemon, &upload, &data),
        Request::Import {
            upload,
            data,
            tool,
            file,
        } => {
            let source = import::Source { tool, file };
            import::handle(daemon, upload.as_deref(), data, source).await
        }
        Request::Search(query) => search::handle(daemon, query).await,
        Request::Rename { session, title } => rename::rename(daemon, &session, &title).await,
        Request::Place { session, change } => rename::place(daemon, &session, change).await,
        Request::Purge { session } => purge::handle(daemon, &session).await,
    }
}
