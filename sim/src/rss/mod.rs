//! The RSS pipeline from Rust: frame generators and the drivers that the tests and the CLI share.

pub mod frames;
pub mod pipeline;

use crate::axis;
use rocenic_model::rss::parse::PARSE_WINDOW;

/// The parser's window of a frame as Verilator words: frame byte i in bits [8i +: 8], zero past
/// the frame.
pub fn window_words(frame: &[u8]) -> [u32; PARSE_WINDOW / 4] {
    let mut words = [0u32; PARSE_WINDOW / 4];
    axis::bytes_to_words(&frame[..frame.len().min(PARSE_WINDOW)], &mut words);
    words
}

/// A 128-bit port (byte 0 in bits [127:120]) as the 16 bytes it holds.
pub fn bytes_of_u128_port(words: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    axis::words_to_bytes_msb_first(&words, &mut out);
    out
}
