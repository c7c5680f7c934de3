//! Rebuilds the tests when a file is added to `tests/suite/`: every file there is a
//! module (`automod`), which cargo alone would not notice.

fn main() {
    println!("cargo:rerun-if-changed=tests/suite");
}
