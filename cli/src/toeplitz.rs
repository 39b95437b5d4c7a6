//! `rocenic toeplitz`: the Toeplitz hash of hex inputs.

use crate::csvio;
use crate::engine::{parse_engine, Engine};
use crate::output::Output;
use crate::{Failure, Outcome};
use rocenic_model::toeplitz::Toeplitz;
use std::path::PathBuf;

/// Rows per chunk: results are written as each chunk is hashed.
const CHUNK: usize = 4096;

/// Why a hash could not be computed: the key or the input is at fault.
pub enum Bad {
    Key(String),
    Input(String),
}

/// What `rocenic toeplitz` computes; the engines implement it.
pub trait Unit {
    /// The Toeplitz hash of `data` under `key`.
    fn hash(&mut self, key: &[u8], data: &[u8]) -> Result<u32, Bad>;
}

#[derive(clap::Args)]
pub struct Args {
    /// Implementation to run: model (the only one that hashes bare bytes).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// CSV with columns `key_hex,input_hex` (plain hex bytes, no 0x); default standard input.
    #[arg(long, short)]
    input: Option<PathBuf>,
    /// CSV output: the input rows plus `hash` (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// One key, as plain hex bytes.
    #[arg(long, requires = "data")]
    key: Option<String>,
    /// One input, as plain hex bytes.
    #[arg(long, requires = "key")]
    data: Option<String>,
}

/// Decodes hex bytes: plain digit pairs (an even number of digits, no prefix), or pairs
/// separated by colons as `ethtool -x` prints a key (`6d:5a:56:da:…`).
pub fn decode_hex(text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    if t.contains(':') {
        return t
            .split(':')
            .map(|pair| {
                (pair.len() == 2)
                    .then(|| u8::from_str_radix(pair, 16).ok())
                    .flatten()
                    .ok_or_else(|| {
                        format!("`{t}`: `{pair}` is not a byte (two hex digits between colons)")
                    })
            })
            .collect();
    }
    if !t.len().is_multiple_of(2) {
        return Err(format!("`{t}` has an odd number of hex digits"));
    }
    (0..t.len())
        .step_by(2)
        .map(|i| {
            t.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("`{t}` is not plain hex bytes (no 0x prefix)"))
        })
        .collect()
}

/// Precomputes a key for the fastest form this CPU runs, with a message fit for the user.
pub fn hasher_for(key: &[u8]) -> Result<Toeplitz, String> {
    Toeplitz::new(key).map_err(|e| e.to_string())
}

pub fn run(args: Args) -> Outcome {
    let mut unit = args.engine.toeplitz()?;
    if let (Some(key), Some(data)) = (&args.key, &args.data) {
        if args.input.is_some() {
            return Err(Failure(
                "give either --input or --key/--data, not both".into(),
            ));
        }
        let key = decode_hex(key).map_err(|e| Failure(format!("--key: {e}")))?;
        let data = decode_hex(data).map_err(|e| Failure(format!("--data: {e}")))?;
        let hash = unit
            .hash(&key, &data)
            .map_err(|(Bad::Key(e) | Bad::Input(e))| e)?;
        println!("{hash:#010x}");
        return Ok(true);
    }

    let mut input = csvio::open(&args.input)?;
    let columns = input.columns();
    columns.refuse("hash")?;
    let k = columns.require("key_hex", "needs key_hex,input_hex")?;
    let d = columns.require("input_hex", "needs key_hex,input_hex")?;
    let mut header = columns.header().clone();
    header.push_field("hash");
    let at = |line: u64, col: &str, e: String| Failure(format!("line {line}: column `{col}`: {e}"));
    let parse = |row: &csvio::Row| -> Result<(Vec<u8>, Vec<u8>), Failure> {
        Ok((
            decode_hex(row.text(k)).map_err(|e| at(row.line, "key_hex", e))?,
            decode_hex(row.text(d)).map_err(|e| at(row.line, "input_hex", e))?,
        ))
    };
    Output::run(args.output.as_deref(), |out| {
        let mut out = csvio::writer(out);
        out.write_record(&header)?;
        csvio::for_each_chunk(&mut input, &mut out, CHUNK, parse, |rows, lines| {
            rows.iter()
                .zip(lines)
                .map(|((key, data), &line)| {
                    let hash = unit.hash(key, data).map_err(|bad| match bad {
                        Bad::Key(e) => at(line, "key_hex", e),
                        Bad::Input(e) => at(line, "input_hex", e),
                    })?;
                    Ok(vec![format!("{hash:#010x}")])
                })
                .collect()
        })
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::decode_hex;

    #[test]
    fn hex() {
        assert_eq!(decode_hex("00ff10"), Ok(vec![0, 0xff, 0x10]));
        assert_eq!(decode_hex(""), Ok(vec![]));
        assert!(decode_hex("0x00").is_err());
        assert!(decode_hex("abc").is_err());
        assert!(decode_hex("zz").is_err());
        assert!(decode_hex("é0").is_err());
        assert_eq!(decode_hex("6d:5A:00"), Ok(vec![0x6d, 0x5a, 0]));
        assert!(decode_hex("6d:5:00").is_err());
        assert!(decode_hex("6d:5a:").is_err());
        assert!(decode_hex("6d5a:00").is_err());
    }
}
