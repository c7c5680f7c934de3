//! Value encoding for the store: one format-version byte, then bincode.
//!
//! Each record type has its own current version (see `store/mod.rs`); readers accept older
//! versions they know how to migrate (see `store/legacy.rs`).

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::store::StoreError;

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a value behind its format-version byte.
pub fn encode<T: Serialize>(value: &T, version: u8) -> Result<Vec<u8>, StoreError> {
    let mut bytes = vec![version];
    bincode::serde::encode_into_std_write(value, &mut bytes, config())
        .map_err(|e| StoreError::Corrupt(format!("cannot encode a record: {e}")))?;
    Ok(bytes)
}

/// Splits a stored value into its version byte and body.
pub fn split<'a>(bytes: &'a [u8], what: &str) -> Result<(u8, &'a [u8]), StoreError> {
    match bytes.split_first() {
        Some((&version, body)) => Ok((version, body)),
        None => Err(StoreError::Corrupt(format!("{what}: empty value"))),
    }
}

/// Decodes a body, refusing one with bytes left over.
pub fn body<T: DeserializeOwned>(body: &[u8], what: &str) -> Result<T, StoreError> {
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

/// Decodes a value whose only known version is `version`.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str, version: u8) -> Result<T, StoreError> {
    match split(bytes, what)? {
        (found, rest) if found == version => body(rest, what),
        (found, _) => Err(unknown(what, found, version)),
    }
}

/// The error for a version this build cannot read.
pub fn unknown(what: &str, found: u8, current: u8) -> StoreError {
    StoreError::UnknownFormat {
        what: what.to_string(),
        version: found,
        current,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_carry_the_version_byte_and_round_trip() {
        let bytes = encode(&(7u64, "x".to_string()), 3).unwrap();
        assert_eq!(bytes[0], 3);
        let back: (u64, String) = decode(&bytes, "pair", 3).unwrap();
        assert_eq!(back, (7, "x".to_string()));
    }

    #[test]
    fn an_unknown_version_is_named() {
        let err = decode::<u64>(&[9, 1], "node", 1).unwrap_err();
        assert!(matches!(err, StoreError::UnknownFormat { version: 9, .. }));
        assert!(err.to_string().contains("format version 9"), "{err}");
    }
}
