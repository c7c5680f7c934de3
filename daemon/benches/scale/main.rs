//! `cargo bench -p omnid --bench scale`: what Omni costs as sessions and stores grow. Every
//! store is written through the daemon's own store code; every figure is printed as one
//! line `FIGURE name value` (after a line for people saying what it compares).
//!
//! | figure | what |
//! |---|---|
//! | `cold_start_ratio` | start to the first answer with 1,000,000 nodes in 1,000 sessions ÷ with an empty store |
//! | `store_open_ms_1m` | of that, the store's open (sled loading its page table), as omnid logs it |
//! | `cold_start_ratio_beside_open` | the rest of those starts, beside the store's open, big ÷ empty |
//! | `first_answer_ms_100k_sessions` | start to the first answered request with 100,000 sessions |
//! | `first_answer_ratio_100k_sessions` | that ÷ the same with an empty store |
//! | `first_touch_ms_100k` | the first request (an undo) on a 100,000-turn session after a restart |
//! | `send_cpu_ratio_10k` | the daemon's CPU per send on a 10,000-turn session ÷ on a 10-turn one |
//! | `send_body_ms_10k` | serialising a 10,000-turn context as JSON once: the body's own size cost |
//! | `syncs_per_turn_64` | file syncs per committed turn, 64 sessions sending at once |
//! | `commit_ratio` | one committed turn ÷ a raw `write` + `fdatasync` in the same directory |
//! | `commit_ratio_postgres` | one committed turn on PostgreSQL ÷ a bare `INSERT` + `COMMIT` of the same bytes on the same server |
//! | `follower_delay_postgres` | a chunk published on one instance until another hears it (p50, p99), and ÷ a bare `NOTIFY` |
//! | `sends_ratio_two_instances` | turns committed by 16 sessions at once on two instances ÷ on one |
//! | `cold_start_ratio_postgres` | start to the first answer on a database of 1,000,000 nodes in 1,000 sessions ÷ on an empty one |
//! | `rss_mb_10k_idle` | resident memory after 10,000 sessions were touched once and left idle |
//! | `disk_ratio_100k` | bytes on disk ÷ bytes of text, for a 100,000-turn chat |
//! | `ipc_ratio` | a request round trip through `omnid` ÷ a raw Unix-socket echo |
//! | `commit_ratio_search` | a committed turn with the search index following the store ÷ without |
//! | `search_p50_ms_1m` | a full-text search over 1,000,000 nodes in 1,000 sessions (top 20, with snippets) |
//! | `sessions_ratio_100k` | the first page of `sessions` with 100,000 sessions ÷ with 10, once indexed |
//! | `sessions_ratio_100k_catching_up` | the same during the first start's search catch-up of the 100,000 |
//! | `compact_ms_10k` | compacting a 10,000-turn session (keep 2), the model answering at once |
//! | `compact_ratio_10k` | that ÷ a send on the same session just before |
//! | `summary_request_kb_10k` | the summary request's body |
//! | `context_ratio_after_compact` | the body of a send after the compaction ÷ before it |

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

#[path = "../common/mod.rs"]
mod common;
mod compact;
mod disk;
mod listing;
mod memory;
mod search;
mod send;
mod shared;
mod shared_live;
mod shared_start;
mod start;

/// Prints a figure in the one form tools read: `FIGURE name value`.
pub fn figure(name: &str, value: f64) {
    println!("FIGURE {name} {value:.3}");
}

/// Whether to measure `name`: every figure unless some are named on the command line
/// (`cargo bench -p omnid --bench scale -- cold_start_ratio commit_ratio`).
fn wanted(name: &str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    named.is_empty() || named.iter().any(|n| n == name)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        println!("omni scale bench: costs as sessions and stores grow\n");
        if wanted("ipc_ratio") {
            let (echo, ping) = common::echo::round_trips(5000).await;
            common::report(
                "request round trip",
                "raw socket echo",
                &echo,
                "omnid ping",
                &ping,
            );
            figure("ipc_ratio", common::ratio(&ping, &echo));
        }
        if wanted("compact_ms_10k") {
            compact::compact_10k().await;
        }
        if wanted("commit_ratio") {
            disk::commit_ratio(300).await;
        }
        if wanted("commit_ratio_postgres") {
            shared::commit_ratio(1000).await;
        }
        if wanted("follower_delay_postgres") {
            shared_live::follower_delay(300).await;
        }
        if wanted("sends_ratio_two_instances") {
            shared_live::two_instances(5).await;
        }
        if wanted("cold_start_ratio_postgres") {
            shared_start::cold_start(1000, 1000, 5).await;
        }
        if wanted("commit_ratio_search") {
            search::commit_with_index(300).await;
        }
        if wanted("search_p50_ms_1m") {
            search::search_1m(10).await;
        }
        if wanted("disk_ratio_100k") {
            disk::disk_ratio_100k().await;
        }
        if wanted("first_touch_ms_100k") {
            start::first_touch_100k(3).await;
        }
        if wanted("send_cpu_ratio_10k") {
            send::cpu_per_send(200).await;
        }
        if wanted("send_body_ms_10k") {
            send::body_cost();
        }
        if wanted("syncs_per_turn_64") {
            send::syncs_per_turn(64, 10).await;
        }
        if wanted("rss_mb_10k_idle") {
            memory::idle_sessions(10_000).await;
        }
        if wanted("sessions_ratio_100k") {
            listing::sessions_at_any_size(1000).await;
        }
        if wanted("first_answer_ms_100k_sessions") {
            start::many_sessions(5).await;
        }
        if wanted("cold_start_ratio") {
            start::cold_start(5).await;
        }
    });
}
