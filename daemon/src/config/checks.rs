//! The checks that turn one setting's value into what the daemon uses, refusing with the
//! flag's name what cannot be: an address that is not loopback, seconds that are not
//! positive, a count of zero.

use std::time::Duration;

use anyhow::bail;

/// A TCP address a flag asks to serve on, refused unless it is loopback: what omnid
/// serves there is for this machine only.
pub fn loopback(
    flag: &str,
    what: &str,
    addr: Option<std::net::SocketAddr>,
) -> anyhow::Result<Option<std::net::SocketAddr>> {
    match addr {
        Some(addr) if !addr.ip().is_loopback() => bail!(
            "--{flag} {addr} is not a loopback address; {what} serves this machine only \
             (use 127.0.0.1:PORT or [::1]:PORT)"
        ),
        other => Ok(other),
    }
}

/// A positive, finite number of seconds as a duration.
pub fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => bail!("--{flag} must be a positive number of seconds, not {value}"),
    }
}

/// A count that must be at least one.
pub fn at_least_one<T: PartialEq + From<u8>>(flag: &str, value: T) -> anyhow::Result<T> {
    if value == T::from(0) {
        bail!("--{flag} must be at least 1");
    }
    Ok(value)
}
