//! Rebuilds omnid when a file of the web app (`web/`) is added, changed or removed: the
//! files are embedded in the binary.

fn main() {
    println!("cargo:rerun-if-changed=web");
}
