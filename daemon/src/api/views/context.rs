//! The context window as clients see it: a session's gauge, and what a compaction did.

use omni_proto as wire;

use crate::services::WindowSource;
use crate::session::gauge::Gauge;
use crate::session::outcome::{Compacted, Compacting};

/// A gauge as clients see it: percent and warning worked out once, here.
pub fn gauge(gauge: &Gauge) -> wire::ContextGauge {
    wire::ContextGauge {
        tokens: gauge.size.tokens,
        estimated: gauge.size.estimated,
        model: gauge.model.clone(),
        window: gauge.window.map(|w| w.tokens),
        window_source: gauge.window.map(|w| match w.source {
            WindowSource::Config => wire::WindowSource::Config,
            WindowSource::Api => wire::WindowSource::Api,
            WindowSource::Known => wire::WindowSource::Known,
        }),
        percent: gauge.percent(),
        warning: gauge.warning(),
    }
}

/// The gauge of a session that cannot be measured (its records cannot be read).
pub fn unmeasured() -> wire::ContextGauge {
    wire::ContextGauge {
        tokens: 0,
        estimated: 0,
        model: String::new(),
        window: None,
        window_source: None,
        percent: None,
        warning: None,
    }
}

/// A compaction starting, as clients see it.
pub fn compacting(compacting: Compacting) -> wire::Compacting {
    wire::Compacting {
        session: compacting.session.to_string(),
        covers: compacting.covers,
        model: compacting.model,
        why: compacting.why.to_string(),
    }
}

/// A stored compaction, as clients see it.
pub fn compacted(compacted: Compacted) -> wire::Compacted {
    wire::Compacted {
        session: compacted.session.to_string(),
        node: compacted.node,
        from: compacted.from,
        covers: compacted.covers,
        resumes_at: compacted.resumes_at,
        text: compacted.text,
        model: compacted.model.into(),
        before: gauge(&compacted.before),
        after: gauge(&compacted.after),
    }
}
