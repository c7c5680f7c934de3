use std::os::unix::fs::PermissionsExt;

use super::declare::Declared;
use super::settings::DECLARED;
use super::*;

fn resolve(flags: SettingFlags, env: &[(&'static str, &str)], file: &str) -> Config {
    try_resolve(flags, env, file).unwrap()
}

fn try_resolve(
    flags: SettingFlags,
    env: &[(&'static str, &str)],
    file: &str,
) -> anyhow::Result<Config> {
    let env = Env::from_pairs(env.iter().map(|(k, v)| (*k, v.to_string())));
    let args = Args {
        settings: flags,
        ..Args::default()
    };
    Config::resolve(&args, &env, None, &file::parse(file)?)
}

#[test]
fn flags_beat_environment_beats_file_beats_defaults() {
    let file = "socket = \"/from/file.sock\"\nmodel = \"file-model\"\nbase_url = \"http://file\"\n[retry]\nmax_attempts = 7\n";
    let env = [("OMNI_SOCKET", "/from/env.sock"), ("HOME", "/home/u")];
    let config = resolve(SettingFlags::default(), &env, file);
    assert_eq!(
        config.socket,
        PathBuf::from("/from/env.sock"),
        "environment over file"
    );
    assert_eq!(config.provider.model, "file-model", "file over default");
    assert_eq!(config.retry.max_attempts, 7);
    assert_eq!(
        config.retry.initial_delay,
        Duration::from_secs(1),
        "default"
    );

    let flags = SettingFlags {
        socket: Some("/from/flag.sock".into()),
        model: Some("flag-model".into()),
        retry_max_attempts: Some(2),
        ..SettingFlags::default()
    };
    let config = resolve(flags, &env, file);
    assert_eq!(
        config.socket,
        PathBuf::from("/from/flag.sock"),
        "flag over environment"
    );
    assert_eq!(config.provider.model, "flag-model", "flag over file");
    assert_eq!(config.retry.max_attempts, 2);
    assert_eq!(config.provider.default.base_url, "http://file");
}

#[test]
fn the_api_key_follows_the_same_rule() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = |name: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("key-from-{name}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        path
    };
    let (flag, file) = (key_file("flag"), key_file("file"));
    std::fs::write(dir.path().join(key::CREDENTIAL), "key-from-credential").unwrap();
    let credentials = dir.path().to_str().unwrap();
    let file_text = format!("api_key_file = {:?}\n", file.display().to_string());
    let key = |flags: SettingFlags, env: &[(&'static str, &str)], file: &str| {
        let config = resolve(flags, env, file);
        let key = config
            .provider
            .default
            .api_key
            .as_ref()
            .map(|k| k.expose().to_string());
        (key, config.key_source())
    };
    let with_flag = SettingFlags {
        api_key: Some(key::ApiKeyFrom::Flag(flag.clone())),
        ..SettingFlags::default()
    };
    let everything = [
        ("GEMINI_API_KEY", "key-from-env"),
        ("CREDENTIALS_DIRECTORY", credentials),
        ("OMNI_SOCKET", "/s"),
        ("HOME", "/h"),
    ];
    let (value, source) = key(with_flag, &everything, &file_text);
    assert_eq!(value.as_deref(), Some("key-from-flag"));
    assert_eq!(
        source,
        format!("set, from --api-key-file {}", flag.display())
    );
    let (value, source) = key(SettingFlags::default(), &everything, &file_text);
    assert_eq!(value.as_deref(), Some("key-from-env"));
    assert_eq!(source, "set, from GEMINI_API_KEY");
    let (value, _) = key(SettingFlags::default(), &everything[1..], &file_text);
    assert_eq!(value.as_deref(), Some("key-from-file"));
    let (value, _) = key(SettingFlags::default(), &everything[1..], "");
    assert_eq!(value.as_deref(), Some("key-from-credential"));
    let (value, source) = key(SettingFlags::default(), &everything[2..], "");
    assert_eq!((value, source.as_str()), (None, "not set"));
}

#[test]
fn systemd_directories_are_the_defaults_under_systemd() {
    let env = [
        ("RUNTIME_DIRECTORY", "/run/omni"),
        ("STATE_DIRECTORY", "/var/lib/omni"),
        ("LOGS_DIRECTORY", "/var/log/omni"),
        ("XDG_RUNTIME_DIR", "/run/user/1000"),
        ("HOME", "/home/u"),
    ];
    let config = resolve(SettingFlags::default(), &env, "");
    assert_eq!(config.socket, PathBuf::from("/run/omni/omnid.sock"));
    assert_eq!(config.data_dir, PathBuf::from("/var/lib/omni"));
    assert_eq!(config.log_dir, PathBuf::from("/var/log/omni"));

    let config = resolve(
        SettingFlags::default(),
        &[("XDG_RUNTIME_DIR", "/run/user/1000"), ("HOME", "/home/u")],
        "",
    );
    assert_eq!(
        config.socket,
        PathBuf::from("/run/user/1000/omni/omnid.sock")
    );
    assert_eq!(config.data_dir, PathBuf::from("/home/u/.local/share/omni"));
    assert_eq!(config.log_dir, PathBuf::from("/home/u/.local/state/omni"));
}

#[test]
fn printed_configuration_reads_back_as_the_same_configuration() {
    let flags = SettingFlags {
        include_thoughts: Some(true),
        retry_stream_errors: Some(false),
        ..SettingFlags::default()
    };
    let config = resolve(
        flags,
        &[("OMNI_SOCKET", "/s.sock"), ("HOME", "/h")],
        "model = \"m\"\n[log]\nretention_days = 3\n",
    );
    let printed = config.print().unwrap();
    assert!(printed.contains("# API key: not set"), "{printed}");
    let again = resolve(SettingFlags::default(), &[("HOME", "/h")], &printed);
    assert_eq!(again.settings, config.settings);
    assert_eq!(again.print().unwrap(), printed);
}

#[test]
fn nonsense_values_are_refused_naming_the_flag() {
    let env = [("OMNI_SOCKET", "/s"), ("HOME", "/h")];
    for (file, says) in [
        (
            "[retry]\nmax_attempts = 0\n",
            "--retry-max-attempts must be at least 1",
        ),
        (
            "shutdown_grace_secs = -1\n",
            "--shutdown-grace-secs must be a positive",
        ),
        (
            "[breaker]\nfailures = 0\n",
            "--breaker-failures must be at least 1",
        ),
        (
            "max_connections = 0\n",
            "--max-connections must be at least 1",
        ),
        (
            "[retry]\ninitial_delay_ms = 9\nmax_delay_ms = 8\n",
            "must not exceed",
        ),
        ("model = 3\n", "invalid value for `model`"),
        (
            "[context]\nwarn_at = 0\n",
            "--context-warn-at is a percent of the context window, from 1 to 100, not 0",
        ),
        (
            "[context]\nwarn_at = 101\n",
            "--context-warn-at is a percent",
        ),
        (
            "[context]\ncompact_at = 150\n",
            "--context-compact-at is a percent of the context window, from 1 to 100, not 150",
        ),
        (
            "[context]\nwarn_at = 300\n",
            "invalid value for `context.warn_at`",
        ),
        (
            "[context]\ncompact_model = \"nowhere/m\"\n",
            "no provider is named `nowhere`",
        ),
        (
            "[windows]\n\"m\" = 0\n",
            "a window is a number of input tokens",
        ),
    ] {
        let error = format!(
            "{:#}",
            try_resolve(SettingFlags::default(), &env, file).unwrap_err()
        );
        assert!(error.contains(says), "{file}: {error}");
    }
}

#[test]
fn the_context_settings_and_windows_are_typed_and_printed() {
    let env = [("OMNI_SOCKET", "/s.sock"), ("HOME", "/h")];
    let defaults = resolve(SettingFlags::default(), &env, "");
    assert_eq!(
        defaults.context,
        ContextSettings {
            warn_at: 80,
            compact_at: 90,
            auto_compact: false,
            compact_model: None,
            max_tool_result: 262_144,
        }
    );
    let file = "[context]\nwarn_at = 70\ncompact_at = 85\nauto_compact = true\n\
                compact_model = \"gemini-2.5-flash-lite\"\nmax_tool_result = 0\n\
                [windows]\n\"qwen\" = 32768\n";
    let config = resolve(SettingFlags::default(), &env, file);
    assert_eq!(config.context.warn_at, 70);
    assert_eq!(config.context.compact_at, 85);
    assert!(config.context.auto_compact);
    assert_eq!(
        config.context.compact_model.as_deref(),
        Some("gemini-2.5-flash-lite")
    );
    assert_eq!(config.context.max_tool_result, 0);
    assert_eq!(config.windows.of("gemini", "qwen"), Some(32768));
    let printed = config.print().unwrap();
    let again = resolve(SettingFlags::default(), &env, &printed);
    assert_eq!(again.context, config.context);
    assert_eq!(again.windows, config.windows);
}

#[test]
fn a_reload_keeps_what_only_a_restart_changes() {
    let env = [("HOME", "/h")];
    let running = resolve(
        SettingFlags::default(),
        &env,
        "socket = \"/a.sock\"\nmodel = \"a\"\n",
    );
    let args = Args::default();
    let file = file::parse("socket = \"/b.sock\"\nmodel = \"b\"\nmax_connections = 3\n").unwrap();
    let env = Env::from_pairs(env);
    let mut settings = Settings::resolve(&args.settings, &inputs(&args, &env), &file).unwrap();
    let kept = settings.keep_restart_only(&running.settings);
    assert_eq!(kept, ["socket", "max_connections"]);
    assert_eq!(settings.socket, PathBuf::from("/a.sock"));
    assert_eq!(settings.max_connections, 64);
    assert_eq!(settings.model, "b", "the model reloads");
}

#[test]
fn every_setting_is_in_the_reference_table() {
    let reference = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/configuration.md"
    ));
    let expected = markdown_table(DECLARED);
    assert!(
        reference.contains(&expected),
        "docs/configuration.md's settings table is out of date; replace it with:\n\n{expected}"
    );
}

#[test]
fn every_setting_has_a_unique_flag_and_key() {
    let mut flags: Vec<_> = DECLARED.iter().map(|d| d.flag.split(' ').next()).collect();
    let mut keys: Vec<_> = DECLARED.iter().map(|d| d.key).collect();
    flags.sort();
    flags.dedup();
    keys.sort();
    keys.dedup();
    assert_eq!(flags.len(), DECLARED.len());
    assert_eq!(keys.len(), DECLARED.len());
    let command = <Args as clap::CommandFactory>::command();
    for declared in DECLARED {
        let long = declared
            .flag
            .trim_start_matches("--")
            .split(' ')
            .next()
            .unwrap();
        assert!(
            command
                .get_arguments()
                .any(|arg| arg.get_long() == Some(long)),
            "{long} is not a flag"
        );
    }
}

/// The README's table of settings, generated from the declarations (a test holds the
/// README to it).
pub fn markdown_table(declared: &[Declared]) -> String {
    let mut table = String::from(
        "| flag | file key | environment | default | on SIGHUP | meaning |\n\
         |---|---|---|---|---|---|\n",
    );
    for setting in declared {
        let env = setting.env.map_or(String::new(), |v| format!("`{v}`"));
        let reload = if setting.reloads {
            "applied"
        } else {
            "at restart"
        };
        let secret = if setting.secret {
            " Names a secret: the key itself is never printed or logged."
        } else {
            ""
        };
        table.push_str(&format!(
            "| `{}` | `{}` | {env} | {} | {reload} | {}{secret} |\n",
            setting.flag,
            setting.key,
            setting.default,
            setting.doc.split_whitespace().collect::<Vec<_>>().join(" "),
        ));
    }
    table
}

#[test]
fn flags_that_were_not_given_leave_the_setting_to_the_file() {
    use clap::Parser;
    let none = Args::try_parse_from(["omnid"]).unwrap();
    assert_eq!(none.settings.include_thoughts, None);
    assert_eq!(none.settings.retry_stream_errors, None);
    assert_eq!(none.settings.retry_max_attempts, None);
    let file = "include_thoughts = true\n[retry]\nretry_stream_errors = false\n";
    let config = resolve(
        none.settings,
        &[("OMNI_SOCKET", "/s"), ("HOME", "/h")],
        file,
    );
    assert!(config.provider.request.include_thoughts);
    assert!(!config.retry.retry_stream_errors);

    let given = Args::try_parse_from([
        "omnid",
        "--include-thoughts",
        "--no-retry-stream-errors",
        "--retry-max-attempts",
        "3",
        "--api-key-file",
        "/k",
    ])
    .unwrap();
    assert_eq!(given.settings.include_thoughts, Some(true));
    assert_eq!(given.settings.retry_stream_errors, Some(false));
    assert_eq!(given.settings.retry_max_attempts, Some(3));
    assert_eq!(
        given.settings.api_key,
        Some(key::ApiKeyFrom::Flag("/k".into()))
    );
    assert!(Args::try_parse_from(["omnid", "--include-thoughts", "yes"]).is_err());
}
