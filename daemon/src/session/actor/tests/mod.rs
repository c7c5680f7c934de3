//! The actor tested in-process: a store in a temporary directory, a scripted model API and
//! paused tokio time. No socket, no subprocess: each test drives the session layer as the
//! server's handlers do, and reads the store as `history` does.

mod compact;
mod follow;
mod health;
mod held;
mod measured;
mod models;
mod recovery;
mod registry;
mod tools;
mod turns;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::turn::Phase;
use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::config::{Args, Config, Env, FileValues, SettingFlags};
use crate::diag::Diagnostics;
use crate::model::{NodeRecord, Part, PartContent};
use crate::provider::{ModelApi, ProviderError, RequestBody, StreamUpdate};
use crate::services::{Counters, CurrentSession, Live, Services, Swap};
use crate::session::SessionError;
use crate::session::outcome::{Answer, SessionEvent};
use crate::session::registry::{NewSession, Registry};
use crate::store::Store;

/// What the scripted model does with the next request.
pub enum Step {
    /// Answers with these text pieces, then finishes.
    Text(Vec<&'static str>),
    /// Answers with function calls: (name, arguments as JSON, id).
    Calls(Vec<(&'static str, &'static str, &'static str)>),
    /// Fails this way.
    Fail(ProviderError),
    /// Sends these pieces, then waits for `release` (or for ever), then finishes.
    Hold(Vec<&'static str>, Arc<Notify>),
}

/// A model API that follows a script, then echoes; it records every request body.
#[derive(Default)]
pub struct Scripted {
    script: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<String>>,
}

impl Scripted {
    /// Queues steps for the next requests.
    pub fn push(&self, steps: impl IntoIterator<Item = Step>) {
        self.script.lock().unwrap().extend(steps);
    }

    /// Every request body received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn update(parts: Vec<Part>, finish: bool) -> StreamUpdate {
    StreamUpdate {
        parts,
        finish_reason: finish.then(|| "STOP".to_string()),
        ..StreamUpdate::default()
    }
}

impl ModelApi for Scripted {
    fn url(&self) -> &str {
        "scripted://model"
    }

    fn stream<'a>(
        &'a self,
        body: &'a RequestBody,
        on_update: &'a mut (dyn FnMut(StreamUpdate) + Send),
    ) -> BoxFuture<'a, Result<(), ProviderError>> {
        self.requests.lock().unwrap().push(body.text().into_owned());
        let step = self.script.lock().unwrap().pop_front();
        async move {
            match step.unwrap_or(Step::Text(vec!["an ", "answer"])) {
                Step::Text(pieces) => {
                    let last = pieces.len() - 1;
                    for (i, piece) in pieces.into_iter().enumerate() {
                        on_update(update(vec![Part::text(piece)], i == last));
                    }
                }
                Step::Calls(calls) => {
                    let parts = calls
                        .into_iter()
                        .map(|(name, args, id)| Part {
                            content: PartContent::FunctionCall {
                                id: Some(id.into()),
                                name: name.into(),
                                args_json: args.into(),
                            },
                            thought_signature: Some(format!("sig-{name}")),
                        })
                        .collect();
                    on_update(update(parts, true));
                }
                Step::Fail(error) => return Err(error),
                Step::Hold(pieces, release) => {
                    for piece in pieces {
                        on_update(update(vec![Part::text(piece)], false));
                    }
                    release.notified().await;
                    on_update(update(vec![Part::text(".")], true));
                }
            }
            Ok(())
        }
        .boxed()
    }
}

/// A daemon's session layer with a scripted model, in a temporary directory.
pub struct World {
    _dir: tempfile::TempDir,
    pub services: Arc<Services>,
    pub sessions: Registry,
    pub model: Arc<Scripted>,
}

fn config(dir: &Path, flags: SettingFlags) -> Config {
    let settings = SettingFlags {
        socket: Some(dir.join("omnid.sock")),
        data_dir: Some(dir.join("data")),
        log_dir: Some(dir.join("logs")),
        retry_initial_delay_ms: Some(10),
        ..flags
    };
    let args = Args {
        settings,
        ..Args::default()
    };
    Config::resolve(&args, &Env::default(), None, &FileValues::default()).unwrap()
}

impl World {
    /// A world with the default settings (fast retries).
    pub fn new() -> Self {
        Self::with(SettingFlags::default())
    }

    /// A world with these flags.
    pub fn with(flags: SettingFlags) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path(), flags);
        let model = Arc::new(Scripted::default());
        let services = Arc::new(Services {
            store: Arc::new(Store::open(&config.data_dir).unwrap()),
            diag: Arc::new(Diagnostics::new(&config.log_dir, &config.retention)),
            live: Swap::new(Live::with_provider(config, model.clone(), None)),
            shutdown: CancellationToken::new(),
            tracker: TaskTracker::new(),
            current: CurrentSession::new(None),
            counters: Counters::default(),
            usage_today: crate::usage::UsageToday::new(crate::time::now_ms()),
            windows: crate::services::ModelWindows::new(),
        });
        let sessions = Registry::new(services.clone());
        Self {
            _dir: dir,
            services,
            sessions,
            model,
        }
    }

    /// A new session and its actor.
    pub async fn session(&self, tools: Option<&str>) -> (Uuid, ActorHandle) {
        let record = self
            .sessions
            .create(NewSession {
                tools_json: tools.map(str::to_string),
                ..NewSession::default()
            })
            .await
            .unwrap();
        (record.id, self.sessions.actor(record.id).await.unwrap())
    }

    /// Sends a prompt; returns the outcome and the events that streamed.
    pub async fn send(
        &self,
        actor: &ActorHandle,
        prompt: &str,
    ) -> (Result<Answer, SessionError>, Vec<SessionEvent>) {
        self.send_as(actor, prompt, false).await
    }

    /// Sends a prompt, in place of a pending one when `replace`.
    pub async fn send_as(
        &self,
        actor: &ActorHandle,
        prompt: &str,
        replace: bool,
    ) -> (Result<Answer, SessionError>, Vec<SessionEvent>) {
        let (events, mut incoming) = mpsc::unbounded_channel();
        let result = actor.send(prompt.into(), replace, events).await;
        let mut seen = Vec::new();
        while let Ok(event) = incoming.try_recv() {
            seen.push(event);
        }
        (result, seen)
    }

    /// The session's record and nodes, as stored (the embedded store answers a read at
    /// once, so a test need not wait for it).
    pub fn stored(&self, id: Uuid) -> (crate::model::SessionRecord, Vec<NodeRecord>) {
        let store = &self.services.store;
        let now = "the embedded store reads at once";
        (
            store
                .session(&id)
                .now_or_never()
                .expect(now)
                .unwrap()
                .unwrap(),
            store.nodes(&id).now_or_never().expect(now).unwrap(),
        )
    }

    /// The texts of the nodes of the context at the head: what the model sees next.
    pub fn context(&self, id: Uuid) -> Vec<String> {
        let (record, nodes) = self.stored(id);
        let tree = crate::session::build_tree(&record, crate::session::places(&nodes)).unwrap();
        tree.context_path(tree.head())
            .into_iter()
            .map(|n| nodes[n as usize - 1].text())
            .collect()
    }
}

/// [`ActorHandle::last_life`]'s command.
pub struct LastLifeCommand(Reply<Vec<Phase>>);

impl Run for LastLifeCommand {
    async fn run(self, actor: &mut Actor) {
        let _ = self.0.send(Ok(actor.life.last()));
    }
}

impl ActorHandle {
    /// The phases of the session's last turn that ended, as its actor kept them.
    pub(in crate::session::actor) async fn last_life(&self) -> Vec<Phase> {
        self.call(|reply| Command::LastLife(LastLifeCommand(reply)))
            .await
            .unwrap()
    }
}

/// `model`'s attempt `attempt`.
pub(in crate::session::actor) fn asking(model: &str, attempt: u32) -> Phase {
    Phase::Asking {
        model: model.into(),
        attempt,
    }
}
