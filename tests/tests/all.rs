//! The one binary of Omni's end-to-end tests (`tests/suite/`): run one module with
//! `scripts/test -p omni-tests --test all suite::demo::`.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

mod suite;
