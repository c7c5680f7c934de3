//! Value encoding for the store: one format-version byte, then bincode.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::StoreError;

/// The format every value is written in. Bump it (and teach [`decode`] the old one) when a
/// stored type changes shape.
pub const FORMAT_VERSION: u8 = 1;

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a value behind the format-version byte.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    let mut bytes = vec![FORMAT_VERSION];
    bincode::serde::encode_into_std_write(value, &mut bytes, config())
        .map_err(|e| StoreError::Corrupt(format!("cannot encode a record: {e}")))?;
    Ok(bytes)
}

/// Decodes a value written by [`encode`]; `what` names it in errors.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, StoreError> {
    match bytes.split_first() {
        Some((&FORMAT_VERSION, body)) => {
            let (value, used) = bincode::serde::decode_from_slice(body, config())
                .map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))?;
            if used != body.len() {
                return Err(StoreError::Corrupt(format!(
                    "{what}: {} unexpected trailing bytes",
                    body.len() - used
                )));
            }
            Ok(value)
        }
        Some((&version, _)) => Err(StoreError::UnknownFormat {
            what: what.to_string(),
            version,
        }),
        None => Err(StoreError::Corrupt(format!("{what}: empty value"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_carry_the_version_byte_and_round_trip() {
        let bytes = encode(&(7u64, "x".to_string())).unwrap();
        assert_eq!(bytes[0], FORMAT_VERSION);
        let back: (u64, String) = decode(&bytes, "pair").unwrap();
        assert_eq!(back, (7, "x".to_string()));
    }

    #[test]
    fn an_unknown_version_is_named() {
        let err = decode::<u64>(&[9, 1], "node").unwrap_err();
        assert!(matches!(err, StoreError::UnknownFormat { version: 9, .. }));
        assert!(err.to_string().contains("format version 9"), "{err}");
    }
}
