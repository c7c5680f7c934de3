//! Open files: omnid raises its soft limit to the hard one at start, and the TCP
//! listeners' caps are what is left of it after a reserve, so a flood of TCP connections
//! can never take the descriptors the control socket, `api.sock`, the store and the logs
//! need.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Descriptors kept for everything but the TCP listeners' connections: the store and the
/// logs, `api.sock`'s clients, upstream connections of sessions' sends, the demo model.
/// The control socket's own cap (`--max-connections`) is kept on top of this.
const RESERVE: u64 = 256;

/// Used when the hard limit is "unlimited" (the kernel refuses a soft limit above
/// `fs.nr_open`, 1,048,576 by default).
const UNLIMITED: u64 = 1 << 20;

/// Raises the soft limit on open files to the hard limit and returns the soft limit in
/// effect. A refusal (a sandbox may forbid `setrlimit`) is logged and the limit kept.
pub fn raise_open_files() -> u64 {
    let limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum.unwrap_or(UNLIMITED);
    let soft = limit.current.unwrap_or(UNLIMITED);
    if soft >= hard {
        return soft;
    }
    let raised = Rlimit {
        current: Some(hard),
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => hard,
        Err(error) => {
            tracing::info!(%error, soft, hard, "cannot raise the limit on open files; keeping it");
            soft
        }
    }
}

/// Connections each TCP listener serves at once: `wanted` (`--tcp-max-connections`),
/// lowered to fit `open_files` less the reserve and `control` (the control socket's cap).
/// The two TCP listeners share what is left in thirds: a proxied connection holds two
/// descriptors (the client's and upstream's), an API connection one.
pub fn tcp_cap(open_files: u64, control: usize, wanted: usize) -> usize {
    let spare = open_files.saturating_sub(RESERVE + control as u64);
    let fits = usize::try_from(spare / 3).unwrap_or(usize::MAX).max(1);
    wanted.min(fits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_the_reserve_and_the_control_sockets_share() {
        // The common soft limit: both listeners full use 3 × 234 = 702 of the 704 spare.
        assert_eq!(tcp_cap(1024, 64, 512), 234);
        assert!(3 * tcp_cap(1024, 64, 512) as u64 + RESERVE + 64 <= 1024);
        // Plenty of descriptors: the setting rules.
        assert_eq!(tcp_cap(524_288, 64, 512), 512);
        // Fewer descriptors than the reserve: one connection, never none.
        assert_eq!(tcp_cap(100, 64, 512), 1);
    }

    #[test]
    fn the_soft_limit_ends_at_least_where_it_was() {
        let before = getrlimit(Resource::Nofile).current.unwrap_or(UNLIMITED);
        assert!(raise_open_files() >= before);
    }
}
