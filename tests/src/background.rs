//! A fake server's life: it listens on an ephemeral port of 127.0.0.1 and serves on a
//! thread of its own with its own runtime (so tests stay plain blocking tests, and the
//! daemon's `--demo` can host one without touching its own runtime), until dropped.

use std::future::Future;
use std::net::SocketAddr;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

/// A server running in the background; stops when dropped.
pub(crate) struct Background {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Binds 127.0.0.1:0 and runs `serve` on the listener in a thread named `name`.
    pub(crate) fn start<F, Fut>(name: &str, serve: F) -> std::io::Result<Self>
    where
        F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
        Fut: Future<Output = ()>,
    {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = serve(listener) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
