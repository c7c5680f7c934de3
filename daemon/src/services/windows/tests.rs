use omni_tests::fake_gemini::{FakeGemini, Reply};
use omni_tests::harness::TEST_API_KEY;

use super::*;
use crate::config::{Args, Config, Env, SettingFlags, parse_file_text};

/// The live settings of a daemon whose default provider is `provider` at `base_url`,
/// with `file` as its configuration file.
fn live(provider: &str, base_url: &str, file: &str) -> Live {
    let args = Args {
        settings: SettingFlags {
            socket: Some("/tmp/omni-windows-test.sock".into()),
            data_dir: Some("/tmp/omni-windows-test".into()),
            log_dir: Some("/tmp/omni-windows-test".into()),
            provider: Some(provider.into()),
            base_url: Some(base_url.into()),
            ..SettingFlags::default()
        },
        ..Args::default()
    };
    let env = Env::from_pairs([
        ("GEMINI_API_KEY", TEST_API_KEY),
        ("OPENAI_API_KEY", TEST_API_KEY),
    ]);
    let file = parse_file_text(file).unwrap();
    Live::build(Config::resolve(&args, &env, None, &file).unwrap(), None).unwrap()
}

#[test]
fn the_configuration_wins_then_the_known_windows_and_nothing_is_guessed() {
    let live = live(
        "openai",
        "http://127.0.0.1:9",
        "[windows]\n\"gpt-4o\" = 1000\n\"openai/qwen\" = 32768\n\"qwen\" = 1\n",
    );
    let windows = ModelWindows::new();
    let of = |model| windows.window(&live, "openai", Kind::OpenAi, model);
    let config = |tokens| Window {
        tokens,
        source: WindowSource::Config,
    };
    assert_eq!(of("gpt-4o"), Some(config(1000)), "the file wins");
    assert_eq!(of("qwen"), Some(config(32768)), "PROVIDER/MODEL wins");
    assert_eq!(
        of("gpt-4.1"),
        Some(Window {
            tokens: 1_047_576,
            source: WindowSource::Known
        })
    );
    assert_eq!(of("llama3.1:8b"), None, "unknown, not guessed");
}

#[tokio::test]
async fn a_gemini_model_s_window_is_asked_once_with_the_key_in_a_header() {
    let fake = FakeGemini::start().unwrap();
    fake.set_input_token_limit(500_000);
    let live = live("gemini", &fake.url(), "");
    let windows = ModelWindows::new();
    let endpoint = live.endpoint("gemini-2.5-flash").unwrap();
    let of = || windows.window(&live, "gemini", Kind::Gemini, "gemini-2.5-flash");
    assert_eq!(of().map(|w| w.source), Some(WindowSource::Known), "before");
    windows.learn(&endpoint).await;
    windows.learn(&endpoint).await;
    assert_eq!(
        of(),
        Some(Window {
            tokens: 500_000,
            source: WindowSource::Api
        })
    );
    let asked = fake.model_lookups();
    assert_eq!(asked.len(), 1, "asked once: {asked:?}");
    assert_eq!(asked[0].target, "/v1beta/models/gemini-2.5-flash");
    assert_eq!(asked[0].header("x-goog-api-key"), Some(TEST_API_KEY));
    assert_eq!(
        fake.request_count(),
        0,
        "not counted as a conversation's request"
    );
}

#[tokio::test]
async fn a_failed_ask_is_remembered_for_a_while_then_asked_again() {
    let fake = FakeGemini::start().unwrap();
    fake.push_model_lookup(Reply::error(503, "UNAVAILABLE", "try later"));
    let live = live("gemini", &fake.url(), "");
    let windows = ModelWindows::new();
    let endpoint = live.endpoint("gemini-2.5-pro").unwrap();
    windows.learn(&endpoint).await;
    windows.learn(&endpoint).await;
    assert_eq!(fake.model_lookups().len(), 1, "the failure is remembered");
    let of = || windows.window(&live, "gemini", Kind::Gemini, "gemini-2.5-pro");
    assert_eq!(of().map(|w| w.source), Some(WindowSource::Known));
    windows.age_failures(RETRY_AFTER);
    windows.learn(&endpoint).await;
    assert_eq!(fake.model_lookups().len(), 2, "asked again after a while");
    assert_eq!(of().map(|w| w.source), Some(WindowSource::Api));
}
