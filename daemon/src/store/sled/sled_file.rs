//! Telling a sled database file from anything else *before* sled opens it.
//!
//! sled 0.34 treats what it cannot read at the end of its log as a write torn by a crash,
//! and zeroes it: handed a `db` file that is not its own (JSON, random bytes, another
//! program's data), it would destroy it while failing to open. So an existing `db` must
//! show at least one intact sled segment header before sled touches it. A header is 20
//! bytes at the start of a segment: a CRC-32 (little-endian, bit-inverted) of the 16 bytes
//! that follow. Segments are `segment_size` bytes apart (sled's `conf` says how many).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

const HEADER_LEN: usize = 20;
const DEFAULT_SEGMENT_SIZE: u64 = 512 * 1024;

/// The segment size sled's `conf` file names (its default if it names none).
fn segment_size(conf: &str) -> u64 {
    conf.lines()
        .find_map(|line| line.strip_prefix("segment_size:"))
        .and_then(|value| value.trim().parse().ok())
        .filter(|size: &u64| *size >= HEADER_LEN as u64)
        .unwrap_or(DEFAULT_SEGMENT_SIZE)
}

fn intact(header: &[u8; HEADER_LEN]) -> bool {
    let stored = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) ^ 0xFFFF_FFFF;
    stored == crc32fast::hash(&header[4..])
}

/// Whether `dir/db` holds at least one intact sled segment header. An empty file holds
/// nothing to lose and counts as a new database.
pub fn holds_sled_log(dir: &Path) -> io::Result<bool> {
    let file = File::open(dir.join("db"))?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    let conf = std::fs::read_to_string(dir.join("conf")).unwrap_or_default();
    let step = segment_size(&conf);
    let mut header = [0u8; HEADER_LEN];
    let mut at = 0;
    while at + HEADER_LEN as u64 <= len {
        file.read_exact_at(&mut header, at)?;
        if intact(&header) {
            return Ok(true);
        }
        at += step;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_sled_log_is_recognised_and_junk_is_not() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = sled::open(dir.path()).unwrap();
            for i in 0..2000u32 {
                db.insert(i.to_be_bytes(), vec![7u8; 1000]).unwrap();
            }
            db.flush().unwrap();
        }
        assert!(holds_sled_log(dir.path()).unwrap());
        for junk in [b"{\"a\": 1}\n".to_vec(), vec![0x5a; 600_000], vec![0; 4096]] {
            std::fs::write(dir.path().join("db"), &junk).unwrap();
            assert!(!holds_sled_log(dir.path()).unwrap(), "{} bytes", junk.len());
        }
    }

    #[test]
    fn the_segment_size_comes_from_conf() {
        assert_eq!(segment_size("segment_size: 1024\nversion: 0.34\n"), 1024);
        assert_eq!(segment_size("garbage"), DEFAULT_SEGMENT_SIZE);
    }
}
