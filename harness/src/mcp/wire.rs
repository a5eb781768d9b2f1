//! Newline-delimited JSON-RPC framing shared by the proxy, the mock upstream and the suite's
//! raw client.
//!
//! MCP's stdio transport is one JSON-RPC message per `\n`-terminated line with no header
//! layer. Everything here works on raw bytes so that callers can relay lines byte-faithfully
//! and only parse what they must inspect.

use std::io::{self, BufRead, Write};

/// Longest line any component accepts (64 MiB). A longer line is discarded up to its
/// newline and reported as [`Line::TooLong`], so a hostile peer cannot exhaust memory.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// One framed line read from a stream.
#[derive(Debug)]
pub enum Line {
    /// The bytes of the line without the trailing `\n` (a trailing `\r` is kept: CRLF is the
    /// peer's problem, and JSON parsers accept it as whitespace).
    Data(Vec<u8>),
    /// The line exceeded [`MAX_LINE`]; its bytes were dropped.
    TooLong,
    /// End of stream. A final unterminated fragment is returned as `Data` first.
    Eof,
}

/// Reads one line, never buffering more than `max` bytes of it.
pub fn read_line<R: BufRead>(reader: &mut R, max: usize) -> io::Result<Line> {
    let mut out = Vec::new();
    let mut overflow = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if overflow {
                return Ok(Line::TooLong);
            }
            return Ok(if out.is_empty() {
                Line::Eof
            } else {
                Line::Data(out)
            });
        }
        let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !overflow {
            if out.len() + chunk.len() > max {
                overflow = true;
                out = Vec::new();
            } else {
                out.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            return Ok(if overflow {
                Line::TooLong
            } else {
                Line::Data(out)
            });
        }
    }
}

/// Writes `bytes` followed by `\n` and flushes, as one frame.
pub fn write_line<W: Write>(writer: &mut W, bytes: &[u8]) -> io::Result<()> {
    writer.write_all(bytes)?;
    writer.write_all(b"\n")?;
    writer.flush()
}

/// A map key identifying a JSON-RPC id by JSON type and value (`1` and `"1"` differ).
pub fn id_key(id: &serde_json::Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_bounds_them() {
        let data = b"abc\n0123456789\nxy".to_vec();
        let mut r = io::BufReader::with_capacity(4, &data[..]);
        assert!(matches!(read_line(&mut r, 8).unwrap(), Line::Data(v) if v == b"abc"));
        assert!(matches!(read_line(&mut r, 8).unwrap(), Line::TooLong));
        assert!(matches!(read_line(&mut r, 8).unwrap(), Line::Data(v) if v == b"xy"));
        assert!(matches!(read_line(&mut r, 8).unwrap(), Line::Eof));
    }
}
