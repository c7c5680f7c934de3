//! `omnid store copy --from SRC --to DST`: opens both stores (a data directory, or a
//! PostgreSQL URL with its password in a private file), copies every session, and says
//! what it did. A data directory in use by a running omnid is refused (sled's lock).

use std::path::Path;

use anyhow::Context;

use crate::config::{CopyArgs, StoreUrl, read_private_file};
use crate::store::{SharedStore, Store, StoreOptions};

/// Copies every session from `--from` into `--to`; what it did, to print.
pub fn copy_store(args: &CopyArgs) -> anyhow::Result<String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    runtime.block_on(async {
        let from = open(&args.from, args.from_password_file.as_deref(), false).await?;
        let to = open(&args.to, args.to_password_file.as_deref(), true).await?;
        let copied = crate::store::copy(&from, &to)
            .await
            .with_context(|| format!("copying {} into {}", shown(&args.from), shown(&args.to)))?;
        let mut said = format!(
            "copied {} sessions ({} nodes, {} moves, {} recorded-conversation entries, {} \
             imports, {} diagnostic records) from {} into {}, each read back; {} were there \
             already\n",
            copied.sessions,
            copied.nodes,
            copied.moves,
            copied.chains,
            copied.imports,
            copied.diagnostics,
            shown(&args.from),
            shown(&args.to),
            copied.already,
        );
        let (from_count, to_count) = (from.session_count().await, to.session_count().await);
        said.push_str(&format!(
            "the source holds {from_count} sessions, the destination {to_count}\n"
        ));
        from.close()?;
        to.close()?;
        if !copied.differing.is_empty() {
            let ids: Vec<String> = copied.differing.iter().map(|id| id.to_string()).collect();
            anyhow::bail!(
                "{said}{} sessions are in both stores but differ, and were left as they are \
                 in the destination: {}",
                ids.len(),
                ids.join(", ")
            );
        }
        Ok(said)
    })
}

/// A store given as a data directory or a PostgreSQL URL.
async fn open(spec: &str, password_file: Option<&Path>, create: bool) -> anyhow::Result<Store> {
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        let url: StoreUrl = spec.parse().map_err(anyhow::Error::msg)?;
        let password = password_file
            .map(|file| read_private_file(file, "the store's password file"))
            .transpose()?;
        let shared = SharedStore {
            url: url.secret_text().to_string(),
            password,
            shown: url.shown(),
            instance: "omnid store copy".into(),
            lease: std::time::Duration::from_secs(10),
        };
        let options = StoreOptions {
            shared: Some(shared),
            ..StoreOptions::default()
        };
        return Ok(Store::open_configured(&std::env::temp_dir(), options).await?);
    }
    let dir = Path::new(spec);
    if !create && !dir.is_dir() {
        anyhow::bail!("there is no data directory at {spec}");
    }
    Store::open(dir).with_context(|| format!("cannot open the store in {spec}"))
}

/// A store's name for messages: a URL without its password.
fn shown(spec: &str) -> String {
    spec.parse::<StoreUrl>()
        .map(|url| url.shown())
        .unwrap_or_else(|_| spec.to_string())
}
