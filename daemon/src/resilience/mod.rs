//! Resilience: classify every failure once, retry only what can heal (honouring the
//! server's delay), and stop sending to an endpoint that keeps failing.

pub mod breaker;
mod class;
pub mod classify;
pub mod delay;
pub mod retry;

pub use breaker::{Breaker, BreakerState, BreakerStatus, Permit, Refused};
pub use classify::{Failure, FailureClass, classify};
pub use retry::{Decision, GiveUp, RetryPolicy};
