//! Today's tokens for `status`, without reading the store at every call: what was answered
//! today before this daemon started is read from the store once a day (the first time
//! `status` asks), and every answer committed since is counted as it is stored. The two
//! never overlap: the store is read only for answers stored before the start.

use std::sync::Mutex;

use crate::model::{ModelInfo, ModelUsage};
use crate::store::{Store, StoreError};

use super::{Query, report};

/// Today's answers' tokens, per model.
#[derive(Debug)]
pub struct UsageToday {
    /// When this daemon started, ms since the epoch.
    started_ms: u64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Local midnight of the day counted.
    day_start_ms: u64,
    /// Answers committed since the start, on that day.
    live: Vec<ModelUsage>,
    /// Answers stored that day before the start, once read.
    before_start: Option<Vec<ModelUsage>>,
}

impl UsageToday {
    /// Counts from `started_ms` on.
    pub fn new(started_ms: u64) -> Self {
        Self {
            started_ms,
            state: Mutex::new(State::default()),
        }
    }

    /// Counts an answer committed at `at_ms`.
    pub fn count(&self, info: &ModelInfo, at_ms: u64) {
        let mut state = self.lock();
        state.turn_to(omni_proto::start_of_local_day(at_ms));
        ModelUsage::count(&mut state.live, info);
    }

    /// Today's totals at `now_ms`, per model.
    pub async fn totals(&self, store: &Store, now_ms: u64) -> Result<Vec<ModelUsage>, StoreError> {
        let day_start_ms = omni_proto::start_of_local_day(now_ms);
        let known = {
            let mut state = self.lock();
            state.turn_to(day_start_ms);
            state.before_start.clone()
        };
        let before_start = match known {
            Some(totals) => totals,
            None => {
                let read = self.read_before_start(store, day_start_ms).await?;
                let mut state = self.lock();
                if state.day_start_ms == day_start_ms {
                    state.before_start = Some(read.clone());
                }
                read
            }
        };
        let mut totals = before_start;
        for usage in &self.lock().live {
            ModelUsage::add(&mut totals, usage);
        }
        Ok(totals)
    }

    /// What was answered between `day_start_ms` and this daemon's start.
    async fn read_before_start(
        &self,
        store: &Store,
        day_start_ms: u64,
    ) -> Result<Vec<ModelUsage>, StoreError> {
        if day_start_ms >= self.started_ms {
            return Ok(Vec::new());
        }
        let query = Query {
            since_ms: Some(day_start_ms),
            until_ms: Some(self.started_ms),
            by: omni_proto::UsageGrouping::Model,
            session: None,
        };
        let mut totals = Vec::new();
        for row in report(store, &query).await? {
            for usage in &row.usage {
                ModelUsage::add(&mut totals, usage);
            }
        }
        Ok(totals)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    /// Starts counting a new day when `day_start_ms` is later than the one counted.
    fn turn_to(&mut self, day_start_ms: u64) {
        if day_start_ms > self.day_start_ms {
            *self = State {
                day_start_ms,
                ..State::default()
            };
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::Usage;

    const HOUR: u64 = 3_600_000;

    fn answer(prompt: u32) -> ModelInfo {
        ModelInfo {
            model: "m".into(),
            model_version: None,
            finish_reason: Some("STOP".into()),
            usage: Some(Usage {
                prompt_tokens: prompt,
                answer_tokens: 1,
                ..Usage::default()
            }),
            attempts: 1,
            latency_ms: 1,
            interrupted: false,
            provider: "p".into(),
        }
    }

    #[tokio::test]
    async fn answers_count_on_their_day_and_a_new_day_starts_from_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let noon = omni_proto::start_of_local_day(1_795_000_000_000) + 12 * HOUR;
        let today = UsageToday::new(noon - HOUR);
        today.count(&answer(10), noon);
        today.count(&answer(5), noon + 1);
        let totals = today.totals(&store, noon + 2).await.unwrap();
        assert_eq!((totals[0].answers, totals[0].input), (2, 15));
        assert_eq!(
            today.totals(&store, noon + 24 * HOUR).await.unwrap(),
            vec![]
        );
        today.count(&answer(7), noon + 25 * HOUR);
        let next_day = today.totals(&store, noon + 26 * HOUR).await.unwrap();
        assert_eq!((next_day[0].answers, next_day[0].input), (1, 7));
    }
}
