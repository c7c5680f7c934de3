//! The tags `omnid --demo`'s model answers to: a tag in a prompt asks it to show one of
//! Omni's behaviours without a real API. Declared here, once, so that the daemon's demo
//! model and the clients' help (`omnictl chat`'s `/help`) cannot disagree.

/// One demo tag and what it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoTag {
    /// The tag as typed in a prompt, e.g. `[demo:503]`.
    pub tag: &'static str,
    /// What the demo model does, and so what Omni shows.
    pub shows: &'static str,
}

/// Every demo tag, in the order help lists them.
pub const DEMO_TAGS: &[DemoTag] = &[
    DemoTag {
        tag: "[demo:503]",
        shows: "overloaded once: the retry heals it, same context",
    },
    DemoTag {
        tag: "[demo:400]",
        shows: "rejected as invalid: the session needs recovery",
    },
    DemoTag {
        tag: "[demo:slow]",
        shows: "a slow answer, to cancel with Ctrl-C",
    },
    DemoTag {
        tag: "[demo:markdown]",
        shows: "an answer in markdown",
    },
    DemoTag {
        tag: "[demo:tool]",
        shows: "the model calls get_weather: give its result as JSON",
    },
    DemoTag {
        tag: "[demo:think]",
        shows: "thoughts stream before the answer",
    },
    DemoTag {
        tag: "[demo:long]",
        shows: "a long answer (see it again with /history)",
    },
    DemoTag {
        tag: "[demo:fallback]",
        shows: "omni-demo is out of quota: its fallback omni-demo-lite answers",
    },
    DemoTag {
        tag: "[demo:blocked]",
        shows: "the prompt is refused; /retry it twice: 3 failures suspend the session",
    },
];
