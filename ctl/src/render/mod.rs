//! Everything `omnictl` prints: styles, the transcript, events and JSON.

pub mod context;
pub mod json;
pub mod live;
pub mod markdown;
pub mod pager;
pub mod spinner;
pub mod style;
pub mod transcript;
pub mod tree;
pub mod usage;
pub mod width;

/// Milliseconds since the epoch → `2026-11-22T10:00:00Z`.
pub fn timestamp(ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_seconds(time).to_string()
}

/// A byte count for humans.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A duration for humans, to the second.
pub fn duration(ms: u64) -> String {
    humantime::format_duration(std::time::Duration::from_secs(ms / 1000)).to_string()
}

/// The model that gave an answer, as model references are written: `PROVIDER/MODEL`.
pub fn model_ref(model: &omni_proto::ModelInfo) -> String {
    format!("{}/{}", model.provider, model.model)
}
