//! Providers in the configuration: the flags for the common case, `[providers.NAME]`
//! tables, model references and the fallback chain.

use super::*;
use crate::provider::Kind;
use crate::provider::openai::family::BASE_URL as OPENAI_BASE_URL;

fn resolve(
    flags: SettingFlags,
    env: &[(&'static str, &str)],
    file: &str,
) -> anyhow::Result<Config> {
    let env = Env::from_pairs(
        env.iter()
            .chain(&[("HOME", "/home/u")])
            .map(|(k, v)| (*k, v.to_string())),
    );
    let args = Args {
        settings: flags,
        ..Args::default()
    };
    Config::resolve(&args, &env, None, &file::parse(file)?)
}

/// Enough environment for every default to resolve.
const HOME: (&str, &str) = ("OMNI_SOCKET", "/run/omni.sock");

#[test]
fn the_flags_name_an_openai_compatible_default_with_its_key_in_openai_api_key() {
    let flags = SettingFlags {
        provider: Some("openai".into()),
        base_url: Some("http://127.0.0.1:11434/v1".into()),
        model: Some("qwen2.5:7b".into()),
        ..SettingFlags::default()
    };
    let env = [
        HOME,
        ("OPENAI_API_KEY", "sk-test"),
        ("GEMINI_API_KEY", "AIza-not-this"),
    ];
    let config = resolve(flags, &env, "").unwrap();
    let default = &config.provider.default;
    assert_eq!(
        (default.name.as_str(), default.kind),
        ("openai", Kind::OpenAi)
    );
    assert_eq!(default.api_key.as_ref().unwrap().expose(), "sk-test");
    assert_eq!(config.key_source(), "set, from OPENAI_API_KEY");
    let resolved = config.provider.resolve("qwen2.5:7b").unwrap();
    assert_eq!(resolved.reference(), "openai/qwen2.5:7b");
    // OpenAI-compatible servers have models with slashes; they stay whole.
    let slashed = config.provider.resolve("meta-llama/llama-3-8b").unwrap();
    assert_eq!(slashed.reference(), "openai/meta-llama/llama-3-8b");

    let bare = resolve(
        SettingFlags {
            provider: Some("openai".into()),
            ..SettingFlags::default()
        },
        &[HOME],
        "",
    )
    .unwrap();
    assert_eq!(bare.provider.default.base_url, OPENAI_BASE_URL);
    assert!(
        bare.provider.default.api_key.is_none(),
        "a local server needs none"
    );
    assert_eq!(bare.key_source(), "not set");
}

const FILE: &str = r#"
model = "local/qwen2.5:7b"
fallback = ["gemini-2.5-flash"]

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "OLLAMA_KEY"
"#;

#[test]
fn named_providers_models_and_fallback_come_from_the_file() {
    let env = [
        HOME,
        ("OLLAMA_KEY", "ollama-secret"),
        ("GEMINI_API_KEY", "AIza-key"),
    ];
    let config = resolve(SettingFlags::default(), &env, FILE).unwrap();
    let model = config.provider.resolve(&config.provider.model).unwrap();
    assert_eq!(
        (model.provider.name.as_str(), model.model),
        ("local", "qwen2.5:7b")
    );
    assert_eq!(config.provider.fallback, ["gemini-2.5-flash"]);
    let fallback = config.provider.resolve("gemini-2.5-flash").unwrap();
    assert_eq!(fallback.reference(), "gemini/gemini-2.5-flash");
    // Every key is redacted, the named provider's included.
    let redactor = config.redactor();
    assert_eq!(
        redactor.text("a ollama-secret b AIza-key"),
        "a [REDACTED] b [REDACTED]"
    );
    // What is printed reads back the same, the tables included, and names no key.
    let printed = config.print().unwrap();
    assert!(
        printed.contains("[providers.local]") && !printed.contains("ollama-secret"),
        "{printed}"
    );
    let again = resolve(SettingFlags::default(), &env, &printed).unwrap();
    assert_eq!(again.provider_entries, config.provider_entries);
    assert_eq!(again.settings, config.settings);
}

#[test]
fn mistakes_in_providers_are_refused_at_start() {
    let env = [HOME, ("OLLAMA_KEY", "k")];
    let error = |file: &str| {
        format!(
            "{:#}",
            resolve(SettingFlags::default(), &env, file).unwrap_err()
        )
    };
    let unknown = error("model = \"lcoal/qwen\"\n");
    assert!(
        unknown.contains("no provider is named `lcoal`"),
        "{unknown}"
    );
    let typo =
        error("[providers.local]\nkind = \"openai\"\nbase_url = \"http://x\"\napi_key = \"k\"\n");
    assert!(typo.contains("[providers.NAME]"), "{typo}");
    let kind = error("[providers.local]\nkind = \"claude\"\nbase_url = \"http://x\"\n");
    assert!(kind.contains("kind must be"), "{kind}");
    let provider = format!(
        "{:#}",
        resolve(
            SettingFlags {
                provider: Some("no-such-kind".into()),
                ..SettingFlags::default()
            },
            &env,
            ""
        )
        .unwrap_err()
    );
    assert!(provider.contains("--provider must be"), "{provider}");
}
