//! The client's side of a forwarded call: the response it gets once the head is known,
//! whole or as a stream of the events that follow.

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio::sync::{mpsc, oneshot};

use super::api::{Api, error_response};
use super::forward::Head;

/// The client's response: the whole answer, or a stream of the events that follow.
pub async fn respond(
    api: &dyn Api,
    head: oneshot::Receiver<Head>,
    events: mpsc::Receiver<Bytes>,
) -> Response {
    match head.await {
        Ok(Head::Whole(whole)) => {
            let mut response = Response::builder().status(whole.status);
            for (name, value) in &whole.headers {
                response = response.header(name, value);
            }
            response
                .body(Body::from(whole.body))
                .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
        }
        Ok(Head::Stream(content_type)) => {
            let stream = futures_util::stream::unfold(events, |mut events| async move {
                let bytes = events.recv().await?;
                Some((Ok::<_, std::convert::Infallible>(bytes), events))
            });
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", content_type)
                .body(Body::from_stream(stream))
                .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
        }
        // The request ended without an answer: shutdown, or it was cancelled.
        Err(_) => error_response(
            api,
            StatusCode::SERVICE_UNAVAILABLE,
            "omnid is shutting down",
        ),
    }
}
