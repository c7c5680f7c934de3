//! Rebuilds omnid when a file of the web app (`web/`) is added, changed or removed: the
//! files are embedded in the binary. Likewise for a request handler added to
//! `src/api/handlers/`: every file there is a module (`automod`), which cargo alone would
//! not notice.

fn main() {
    println!("cargo:rerun-if-changed=web");
    println!("cargo:rerun-if-changed=src/api/handlers");
}
