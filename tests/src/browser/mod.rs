//! A real browser for the web app's tests: headless Chromium driven over WebDriver
//! (`chromedriver`, through `fantoccini`), blocking like the rest of the harness.
//!
//! [`Browser::start`] runs `chromedriver` on a free loopback port, waits for its `/status`
//! to say it is ready, and opens a headless Chromium session with a profile of its own;
//! dropping the [`Browser`] ends both. The binaries are `OMNI_TEST_CHROMIUM` and
//! `OMNI_TEST_CHROMEDRIVER`, else Debian's `/usr/bin/chromium` and `/usr/bin/chromedriver`
//! (`scripts/test` installs them); a test that cannot find them fails, saying how to
//! install them. [`WebOmni`] is a demo daemon serving the web app, and
//! [`Browser::login`] follows its one-time link.
//!
//! Every wait polls with a deadline and fails with the page's HTML and the browser's
//! console; the console is read from Chromium's browser log, so a script error or a
//! Content-Security-Policy violation fails a test ([`Browser::assert_console_clean`]).
//! Screenshots go to `<target>/browser-screenshots/NAME.png`, where CI keeps them.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::runtime::Runtime;

mod app;
mod console;
mod fixtures;
mod page;
mod web;
pub use app::{entries, entry, node_id};
pub use console::ConsoleEntry;
pub use fantoccini::key::Key;
pub use web::WebOmni;

/// The environment variable naming the Chromium binary to drive.
pub const CHROMIUM_ENV: &str = "OMNI_TEST_CHROMIUM";
/// The environment variable naming the `chromedriver` binary.
pub const CHROMEDRIVER_ENV: &str = "OMNI_TEST_CHROMEDRIVER";

/// Longest wait for `chromedriver` to answer and for the browser session to open.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How the browser window is set up.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    width: u32,
    height: u32,
    dark: bool,
    extra_args: Vec<String>,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        Self {
            width: 1280,
            height: 900,
            dark: false,
            extra_args: Vec::new(),
        }
    }
}

impl BrowserOptions {
    /// A laptop's window, 1280×900, light.
    pub fn laptop() -> Self {
        Self::default()
    }

    /// A window of `width`×`height` CSS pixels (a desktop window is never narrower
    /// than 500 pixels: use [`BrowserOptions::phone`] for a phone).
    pub fn size(mut self, width: u32, height: u32) -> Self {
        (self.width, self.height) = (width, height);
        self
    }

    /// A phone-width window, 390×844 CSS pixels (emulated: a desktop window is never
    /// narrower than 500 pixels).
    pub fn phone(mut self) -> Self {
        (self.width, self.height) = (390, 844);
        self
    }

    /// The page sees `prefers-color-scheme: dark`.
    pub fn dark(mut self) -> Self {
        self.dark = true;
        self
    }

    /// Another Chromium command-line flag (e.g. `--host-resolver-rules=...`).
    pub fn arg(mut self, flag: &str) -> Self {
        self.extra_args.push(flag.to_string());
        self
    }

    /// Whether the window is phone-sized (narrower than a desktop window can be).
    fn is_phone(&self) -> bool {
        self.width < 500
    }

    /// The flags Chromium starts with.
    fn chromium_args(&self, profile: &Path) -> Vec<String> {
        let mut args: Vec<String> = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--no-proxy-server",
            "--disable-crash-reporter",
            "--disable-breakpad",
        ]
        .map(String::from)
        .to_vec();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={},{}", self.width, self.height));
        if self.dark {
            args.push("--force-dark-mode".into());
            args.push("--blink-settings=preferredColorScheme=0".into());
        }
        args.extend(self.extra_args.iter().cloned());
        args
    }
}

/// A headless Chromium under `chromedriver`; both are ended when it is dropped.
pub struct Browser {
    runtime: Runtime,
    client: Option<Client>,
    driver: Child,
    dir: TempDir,
    console: Mutex<Vec<ConsoleEntry>>,
}

/// A binary from `env`, else `default`; fails saying how to install it when missing.
fn tool(env: &str, default: &str) -> PathBuf {
    let path = std::env::var_os(env)
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from(default), PathBuf::from);
    assert!(
        path.exists(),
        "{} is missing: the browser tests drive headless Chromium over WebDriver. Install \
         Debian's `chromium` and `chromium-driver` (`scripts/test` does, as root or with \
         sudo: `apt-get install chromium chromium-driver`), or set {CHROMIUM_ENV} and \
         {CHROMEDRIVER_ENV} to the binaries",
        path.display()
    );
    path
}

/// A loopback port nothing listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("the bound address").port()
}

/// Whether the WebDriver server at `address` says it is ready (`GET /status`).
fn driver_ready(address: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /status HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply.replace(' ', "").contains("\"ready\":true")
}

/// The target directory the running test was built in (`<target>/<profile>/deps/TEST`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    exe.ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == "deps"))
        .and_then(|deps| deps.parent()?.parent())
        .map_or_else(std::env::temp_dir, Path::to_path_buf)
}

/// Where screenshots are saved: `<target>/browser-screenshots`.
pub fn screenshot_dir() -> PathBuf {
    target_dir().join("browser-screenshots")
}

impl Browser {
    /// Starts `chromedriver` and a headless Chromium set up by `options`.
    #[track_caller]
    pub fn start(options: BrowserOptions) -> Self {
        let chromium = tool(CHROMIUM_ENV, "/usr/bin/chromium");
        let chromedriver = tool(CHROMEDRIVER_ENV, "/usr/bin/chromedriver");
        let dir = tempfile::Builder::new()
            .prefix("omni-browser-")
            .tempdir()
            .expect("a temporary directory");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the WebDriver client");
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("chromedriver.log"))
            .expect("chromedriver's log file");
        let mut driver = Command::new(&chromedriver);
        driver
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log file again"))
            .stderr(log);
        // Its own process group, so the browser it starts dies with it.
        std::os::unix::process::CommandExt::process_group(&mut driver, 0);
        let driver = driver.spawn().expect("chromedriver starts");
        let mut browser = Browser {
            runtime,
            client: None,
            driver,
            dir,
            console: Mutex::new(Vec::new()),
        };
        browser.wait_for_driver(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
        browser.start_session(port, &chromium, &options);
        browser
    }

    #[track_caller]
    fn wait_for_driver(&mut self, address: SocketAddr) {
        let deadline = Instant::now() + START_TIMEOUT;
        while !driver_ready(address) {
            if let Ok(Some(status)) = self.driver.try_wait() {
                panic!(
                    "chromedriver exited during start-up ({status}):\n{}",
                    self.driver_log()
                );
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not answer /status within {START_TIMEOUT:?}:\n{}",
                self.driver_log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[track_caller]
    fn start_session(&mut self, port: u16, chromium: &Path, options: &BrowserOptions) {
        let profile = self.dir.path().join("profile");
        let mut chrome = json!({
            "binary": chromium,
            "args": options.chromium_args(&profile),
        });
        if options.is_phone() {
            chrome["mobileEmulation"] = json!({"deviceMetrics": {
                "width": options.width,
                "height": options.height,
                "pixelRatio": 1.0,
                "touch": true,
                "mobile": true,
            }});
        }
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": chrome,
            "goog:loggingPrefs": {"browser": "ALL"},
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("an object literal")
        };
        let url = format!("http://127.0.0.1:{port}");
        let connect = async {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            let mut builder = ClientBuilder::new(connector);
            builder.capabilities(capabilities);
            tokio::time::timeout(START_TIMEOUT, builder.connect(&url)).await
        };
        match self.runtime.block_on(connect) {
            Ok(Ok(client)) => self.client = Some(client),
            Ok(Err(e)) => panic!(
                "Chromium did not start under chromedriver: {e}\n{}",
                self.driver_log()
            ),
            Err(_) => panic!(
                "no browser session within {START_TIMEOUT:?}\n{}",
                self.driver_log()
            ),
        }
    }

    /// What `chromedriver` wrote so far (for failure reports).
    pub fn driver_log(&self) -> String {
        let log =
            std::fs::read_to_string(self.dir.path().join("chromedriver.log")).unwrap_or_default();
        let start = log.len().saturating_sub(4000);
        let start = (start..log.len())
            .find(|i| log.is_char_boundary(*i))
            .unwrap_or(log.len());
        log[start..].to_string()
    }

    /// The WebDriver client.
    fn client(&self) -> &Client {
        self.client.as_ref().expect("an open browser session")
    }

    /// Runs a WebDriver call to completion.
    fn run<T>(&self, future: impl Future<Output = T>) -> T {
        self.runtime.block_on(future)
    }

    /// Saves a screenshot of the window as `<target>/browser-screenshots/NAME.png`;
    /// returns its path.
    #[track_caller]
    pub fn screenshot(&self, name: &str) -> PathBuf {
        let png = self
            .run(self.client().screenshot())
            .unwrap_or_else(|e| panic!("a screenshot {name}: {e}"));
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let close =
                async { tokio::time::timeout(Duration::from_secs(5), client.close()).await };
            let _ = self.runtime.block_on(close);
        }
        let group = rustix::process::Pid::from_child(&self.driver);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
