//! Framing: a 4-byte big-endian length, then a bincode-2 (serde) payload.
//!
//! Written by hand rather than with `tokio_util`'s length-delimited codec so that errors can
//! say exactly what was wrong (the claimed length, how much of a frame arrived) and so that
//! a claimed length is checked against [`MAX_FRAME_LEN`] before a single byte is allocated.
//! Payloads are decoded with the same limit, so a tiny frame that *claims* a huge string
//! cannot make the decoder allocate it.

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::error::FrameError;
use crate::limits::{MAX_FRAME_LEN, MAX_PIECED_REPLY_LEN};

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_FRAME_LEN>()
}

/// Encodes a message too large for one frame, to be carried in pieces (at most
/// [`MAX_PIECED_REPLY_LEN`] bytes).
pub fn encode_pieced<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    let config = bincode::config::standard().with_limit::<MAX_PIECED_REPLY_LEN>();
    let payload = bincode::serde::encode_to_vec(message, config)
        .map_err(|e| FrameError::Malformed(e.to_string()))?;
    if payload.len() > MAX_PIECED_REPLY_LEN {
        return Err(FrameError::TooLarge { len: payload.len() });
    }
    Ok(payload)
}

/// Decodes what [`encode_pieced`] made, refusing bytes left over.
pub fn decode_pieced<T: DeserializeOwned>(payload: &[u8]) -> Result<T, FrameError> {
    let config = bincode::config::standard().with_limit::<MAX_PIECED_REPLY_LEN>();
    let (message, used) = bincode::serde::decode_from_slice(payload, config)
        .map_err(|e| FrameError::Malformed(e.to_string()))?;
    if used != payload.len() {
        return Err(FrameError::TrailingBytes {
            trailing: payload.len() - used,
        });
    }
    Ok(message)
}

/// Encodes a message as a frame payload (without the length prefix).
pub fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    let payload = bincode::serde::encode_to_vec(message, config())
        .map_err(|e| FrameError::Malformed(e.to_string()))?;
    if payload.len() > MAX_FRAME_LEN {
        return Err(FrameError::TooLarge { len: payload.len() });
    }
    Ok(payload)
}

/// Decodes a frame payload, refusing payloads with bytes left over.
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, FrameError> {
    let (message, used) = bincode::serde::decode_from_slice(payload, config())
        .map_err(|e| FrameError::Malformed(e.to_string()))?;
    if used != payload.len() {
        return Err(FrameError::TrailingBytes {
            trailing: payload.len() - used,
        });
    }
    Ok(message)
}

/// The payload length a frame's 4-byte prefix announces, refused if over the limit.
pub fn payload_len(prefix: [u8; 4]) -> Result<usize, FrameError> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > MAX_FRAME_LEN {
        return Err(FrameError::TooLarge { len });
    }
    Ok(len)
}

/// Reads one frame's payload. `Ok(None)` means the peer closed the connection cleanly
/// between frames.
pub async fn read_payload<R: AsyncRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < prefix.len() {
        let n = reader.read(&mut prefix[got..]).await?;
        if n == 0 {
            return if got == 0 {
                Ok(None)
            } else {
                Err(FrameError::Truncated { got, expected: 4 })
            };
        }
        got += n;
    }
    let len = payload_len(prefix)?;
    // `take` + `read_to_end` grows the buffer as bytes arrive, so a frame that claims
    // 16 MiB but sends 10 bytes costs 10 bytes.
    let mut payload = Vec::new();
    reader.take(len as u64).read_to_end(&mut payload).await?;
    if payload.len() != len {
        return Err(FrameError::Truncated {
            got: payload.len(),
            expected: len,
        });
    }
    Ok(Some(payload))
}

/// Reads and decodes one frame. `Ok(None)` means the peer closed the connection cleanly.
pub async fn read<T: DeserializeOwned, R: AsyncRead + Unpin>(
    reader: &mut R,
) -> Result<Option<T>, FrameError> {
    match read_payload(reader).await? {
        Some(payload) => decode(&payload).map(Some),
        None => Ok(None),
    }
}

/// Encodes and writes one frame, then flushes.
pub async fn write<T: Serialize, W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &T,
) -> Result<(), FrameError> {
    let payload = encode(message)?;
    let mut frame = Vec::with_capacity(4 + payload.len());
    frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    frame.extend_from_slice(&payload);
    writer.write_all(&frame).await?;
    writer.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Cancelled, ErrorKind, ErrorReply, Event, Hello, HelloReply, Move, MoveOp, Ping, Reply,
        Request, RequestFrame, Response, ResponseFrame, SendPrompt, SessionQuery, SessionRef,
    };

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    // Golden bytes: if one of these fails, the wire format changed. That is only allowed
    // together with a PROTOCOL_VERSION bump (and Hello/HelloReply must never change).
    #[test]
    fn hello_is_frozen() {
        let hello = Hello {
            protocol_version: 1,
            client: "omnictl".into(),
        };
        assert_eq!(hex(&encode(&hello).unwrap()), "01076f6d6e6963746c");
        let welcome = HelloReply::Welcome {
            protocol_version: 1,
            daemon_version: "0.1.0".into(),
        };
        assert_eq!(hex(&encode(&welcome).unwrap()), "000105302e312e30");
    }

    #[test]
    fn request_frames_are_stable() {
        let send = RequestFrame {
            id: 7,
            request: Request::Send(SendPrompt {
                session: SessionRef::Id("ab".into()),
                prompt: "hi".into(),
                replace: false,
            }),
        };
        assert_eq!(hex(&encode(&send).unwrap()), "07020102616202686900");
        let undo = RequestFrame {
            id: 300,
            request: Request::Move(Move {
                session: SessionRef::Current,
                op: MoveOp::Checkout { node: 3 },
            }),
        };
        assert_eq!(hex(&encode(&undo).unwrap()), "fb2c0104000303");
        // A request with no fields, and one whose struct used to be the variant's one
        // field, encode as they did when they were variants of their own.
        let ping = RequestFrame {
            id: 1,
            request: Ping.into(),
        };
        assert_eq!(hex(&encode(&ping).unwrap()), "0100");
        let sessions = RequestFrame {
            id: 2,
            request: SessionQuery::default().into(),
        };
        assert_eq!(hex(&encode(&sessions).unwrap()), "0206000000000000");
    }

    #[test]
    fn response_frames_are_stable() {
        let chunk = ResponseFrame {
            id: 7,
            response: Response::Event(Event::Text("ok".into())),
        };
        assert_eq!(hex(&encode(&chunk).unwrap()), "070001026f6b");
        let error = ResponseFrame {
            id: 7,
            response: Response::Error(ErrorReply::new(ErrorKind::WrongState, "no")),
        };
        assert_eq!(hex(&encode(&error).unwrap()), "070203026e6f");
        // Replies whose fields became a struct of their own encode as before.
        let cancelled = ResponseFrame {
            id: 7,
            response: Response::Reply(Reply::Cancelled(Cancelled {
                session: "s".into(),
                turn: 3,
                kept: Some(4),
            })),
        };
        assert_eq!(hex(&encode(&cancelled).unwrap()), "0701100173030104");
        let pong = ResponseFrame {
            id: 7,
            response: Response::Reply(Reply::Pong),
        };
        assert_eq!(hex(&encode(&pong).unwrap()), "070100");
        // The closing frame of a pieced reply keeps its place (27th) as replies are added.
        let pieced = ResponseFrame {
            id: 7,
            response: Response::Reply(Reply::Pieced(crate::Pieced { bytes: 5 })),
        };
        assert_eq!(hex(&encode(&pieced).unwrap()), "07011a05");
    }

    #[test]
    fn round_trips_through_a_stream() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut a, mut b) = tokio::io::duplex(64);
            let frame = RequestFrame {
                id: 1,
                request: crate::Status.into(),
            };
            write(&mut a, &frame).await.unwrap();
            drop(a);
            let got: Option<RequestFrame> = read(&mut b).await.unwrap();
            assert_eq!(got, Some(frame));
            let end: Option<RequestFrame> = read(&mut b).await.unwrap();
            assert_eq!(end, None, "clean EOF between frames is not an error");
        });
    }

    #[test]
    fn oversized_length_is_refused_before_reading_the_body() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let claimed = (MAX_FRAME_LEN as u32 + 1).to_be_bytes();
            let mut input: &[u8] = &claimed;
            let err = read_payload(&mut input).await.unwrap_err();
            assert!(matches!(err, FrameError::TooLarge { len } if len == MAX_FRAME_LEN + 1));
        });
    }

    #[test]
    fn truncated_frames_are_reported() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut input: &[u8] = &[0, 0, 0, 10, 1, 2, 3];
            let err = read_payload(&mut input).await.unwrap_err();
            assert!(matches!(
                err,
                FrameError::Truncated {
                    got: 3,
                    expected: 10
                }
            ));
            let mut half_prefix: &[u8] = &[0, 0];
            let err = read_payload(&mut half_prefix).await.unwrap_err();
            assert!(matches!(
                err,
                FrameError::Truncated {
                    got: 2,
                    expected: 4
                }
            ));
        });
    }

    #[test]
    fn a_small_frame_claiming_a_huge_string_is_refused_without_allocating_it() {
        // Variant 2 (Send), session Current, then a string length of 2^40 as a varint
        // (0xfd + u64 LE): with an unlimited config this would try to allocate 1 TiB.
        let mut payload = vec![0x01, 0x02, 0x00, 0xfd];
        payload.extend_from_slice(&(1u64 << 40).to_le_bytes());
        let err = decode::<RequestFrame>(&payload).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{err:?}");
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut payload = encode(&RequestFrame {
            id: 1,
            request: Ping.into(),
        })
        .unwrap();
        payload.push(0);
        let err = decode::<RequestFrame>(&payload).unwrap_err();
        assert!(matches!(err, FrameError::TrailingBytes { trailing: 1 }));
    }

    #[test]
    fn garbage_is_malformed() {
        let err = decode::<RequestFrame>(&[0xff, 0xff, 0xff]).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)));
    }
}
