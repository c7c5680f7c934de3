//! The static upstream: a Gemini-shaped API that answers every generation at once with
//! the same bytes (a whole `GenerateContentResponse`, or a stream of three events), on one
//! thread, so that what a load run measures is the proxy and not a model.

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// A whole answer, as `generateContent` gives it.
const WHOLE: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"A static answer of a few words, the same every time."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":11,"totalTokenCount":23},"modelVersion":"static-1"}"#;

/// The same answer streamed (`streamGenerateContent?alt=sse`), in three events.
const STREAM: &str = concat!(
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"A static answer \"}]},\"index\":0}],\"modelVersion\":\"static-1\"}\r\n\r\n",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"of a few words, \"}]},\"index\":0}],\"modelVersion\":\"static-1\"}\r\n\r\n",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"the same every time.\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"candidatesTokenCount\":11,\"totalTokenCount\":23},\"modelVersion\":\"static-1\"}\r\n\r\n",
);

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // The body is not read: hyper drains what is left of it before the next request.
    let streamed = request.uri().path().ends_with(":streamGenerateContent");
    let (body, kind) = if streamed {
        (STREAM, "text/event-stream")
    } else {
        (WHOLE, "application/json; charset=UTF-8")
    };
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    if let Ok(value) = kind.parse() {
        response.headers_mut().insert("content-type", value);
    }
    Ok(response)
}

/// Serves the static upstream on a thread of its own (a one-thread runtime); its address.
pub fn start() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    listener.set_nonblocking(true).expect("non-blocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(async move {
                    let served = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service_fn(answer));
                    let _ = served.await;
                });
            }
        });
    });
    address
}
