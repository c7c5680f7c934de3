//! omnid's own end-to-end tests (the binary run from outside, stores written through the
//! library), one module per concern, in one binary so the library is linked once.

mod cli;
mod common;
mod print_config;
mod trash_expiry;
mod written_stores;
