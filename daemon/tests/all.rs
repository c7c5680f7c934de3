//! The one binary of omnid's end-to-end tests (`tests/suite/`).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

mod suite;
