use super::*;

fn resolve(args: Args, env: &[(&'static str, &'static str)], file: &str) -> Config {
    let env = Env::from_pairs(env.iter().copied());
    let file = FileConfig::parse(file).unwrap();
    Config::resolve(&args, &env, None, file).unwrap()
}

#[test]
fn flags_beat_environment_beats_file_beats_defaults() {
    let file = "socket = \"/from/file.sock\"\nmodel = \"file-model\"\nbase_url = \"http://file\"\n[retry]\nmax_attempts = 7\n";
    let env = [("OMNI_SOCKET", "/from/env.sock"), ("HOME", "/home/u")];
    let config = resolve(Args::default(), &env, file);
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

    let args = Args {
        socket: Some("/from/flag.sock".into()),
        model: Some("flag-model".into()),
        retry_max_attempts: Some(2),
        ..Args::default()
    };
    let config = resolve(args, &env, file);
    assert_eq!(
        config.socket,
        PathBuf::from("/from/flag.sock"),
        "flag over environment"
    );
    assert_eq!(config.provider.model, "flag-model", "flag over file");
    assert_eq!(config.retry.max_attempts, 2);
    assert_eq!(config.provider.base_url, "http://file");
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
    let config = resolve(Args::default(), &env, "");
    assert_eq!(config.socket, PathBuf::from("/run/omni/omnid.sock"));
    assert_eq!(config.data_dir, PathBuf::from("/var/lib/omni"));
    assert_eq!(config.log_dir, PathBuf::from("/var/log/omni"));

    let config = resolve(
        Args::default(),
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
    let config = resolve(
        Args::default(),
        &[("OMNI_SOCKET", "/s.sock"), ("HOME", "/h")],
        "model = \"m\"\n",
    );
    let printed = config.print().unwrap();
    assert!(printed.contains("# API key: not set"), "{printed}");
    let again = Config::resolve(
        &Args::default(),
        &Env::from_pairs([("HOME", "/h")]),
        None,
        FileConfig::parse(&printed).unwrap(),
    )
    .unwrap();
    assert_eq!(again.print().unwrap(), printed);
}

#[test]
fn nonsense_values_are_refused() {
    let env = Env::from_pairs([("OMNI_SOCKET", "/s"), ("HOME", "/h")]);
    for file in [
        "[retry]\nmax_attempts = 0\n",
        "shutdown_grace_secs = -1\n",
        "[breaker]\nfailures = 0\n",
    ] {
        assert!(
            Config::resolve(
                &Args::default(),
                &env,
                None,
                FileConfig::parse(file).unwrap()
            )
            .is_err(),
            "{file}"
        );
    }
}
