//! Omni's end-to-end tests, one module per concern. They live in one binary: each file
//! under `tests/` was a binary of its own that linked the whole test crate and omnid's
//! dependencies again (69 links, most of a clean build's time and disk). nextest still
//! runs every test in a process of its own, so they stay as isolated as before.

//! Every file here is a module: a new test file needs no line here.

automod::dir!("tests/suite");
