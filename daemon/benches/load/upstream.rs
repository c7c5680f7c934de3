//! The static upstream: a Gemini-shaped API and an OpenAI-shaped one (`/v1/chat/completions`)
//! that answer every generation at once with the same bytes (a whole answer, or a stream
//! of three events), on one thread, so that what a load run measures is the proxy and not a
//! model.

use std::convert::Infallible;
use std::net::SocketAddr;

use http_body_util::{BodyExt, Full};
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

/// A whole Chat Completions answer.
const CHAT_WHOLE: &str = r#"{"id":"chatcmpl-static","object":"chat.completion","created":1,"model":"static-1","choices":[{"index":0,"message":{"role":"assistant","content":"A static answer of a few words, the same every time."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":11,"total_tokens":23}}"#;

/// The same answer streamed, in three chunks, the usage and `[DONE]`.
const CHAT_STREAM: &str = concat!(
    "data: {\"id\":\"chatcmpl-static\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"static-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"A static answer \"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-static\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"static-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"of a few words, \"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"chatcmpl-static\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"static-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the same every time.\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"id\":\"chatcmpl-static\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"static-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":11,\"total_tokens\":23}}\n\n",
    "data: [DONE]\n\n",
);

/// What a request is answered with, and its content type. Gemini's paths say whether
/// to stream; a Chat Completions body says it (`"stream":true`), so that one is read.
async fn chosen(request: Request<Incoming>) -> (&'static str, &'static str) {
    const JSON: &str = "application/json; charset=UTF-8";
    if !request.uri().path().ends_with("/chat/completions") {
        // The body is not read: hyper drains what is left of it before the next request.
        return match request.uri().path().ends_with(":streamGenerateContent") {
            true => (STREAM, "text/event-stream"),
            false => (WHOLE, JSON),
        };
    }
    let body = request.into_body().collect().await.map(|b| b.to_bytes());
    let streamed = body
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("stream")?.as_bool())
        .unwrap_or(false);
    match streamed {
        true => (CHAT_STREAM, "text/event-stream"),
        false => (CHAT_WHOLE, JSON),
    }
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (body, kind) = chosen(request).await;
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    if let Ok(value) = kind.parse() {
        response.headers_mut().insert("content-type", value);
    }
    Ok(response)
}

/// Serves the static upstream on a thread of its own (a one-thread runtime), on `port`
/// (any free one if 0); its address.
pub fn start(port: u16) -> SocketAddr {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("a loopback port");
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
