//! Rebuilds omnictl when a file is added to `src/commands/`: every file there is a
//! module (`automod`), which cargo alone would not notice.

fn main() {
    println!("cargo:rerun-if-changed=src/commands");
}
