//! `rocenic toeplitz`: the Toeplitz hash of hex inputs.

use crate::csvio::{self, Columns};
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::toeplitz::{ToeplitzTable, MAX_KEY_LEN};
use std::path::PathBuf;

/// Which implementation computes the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The reference model.
    Model,
}

#[derive(clap::Args)]
pub struct Args {
    /// Implementation to run.
    #[arg(long, value_enum, default_value_t = Engine::Model)]
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

/// Decodes plain hex bytes (an even number of digits, no prefix).
pub fn decode_hex(text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    if t.len() % 2 != 0 {
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

/// Builds the table for a key, with a message fit for the user.
fn table_for(key: &[u8]) -> Result<ToeplitzTable, String> {
    ToeplitzTable::new(key).map_err(|e| format!("{e} (keys are 4 to {MAX_KEY_LEN} bytes)"))
}

pub fn run(args: Args) -> Outcome {
    let Engine::Model = args.engine;
    if let (Some(key), Some(data)) = (&args.key, &args.data) {
        if args.input.is_some() {
            return Err(Failure(
                "give either --input or --key/--data, not both".into(),
            ));
        }
        let key = decode_hex(key).map_err(|e| Failure(format!("--key: {e}")))?;
        let data = decode_hex(data).map_err(|e| Failure(format!("--data: {e}")))?;
        let hash = table_for(&key).and_then(|t| t.hash(&data).map_err(|e| e.to_string()))?;
        println!("{hash:#010x}");
        return Ok(true);
    }

    let mut rdr = csvio::reader(&args.input)?;
    let columns = Columns::read(&mut rdr)?;
    if columns.find("hash").is_some() {
        return Err(Failure(
            "line 1: the input already has a `hash` column, which the output appends".into(),
        ));
    }
    let k = columns.require("key_hex", "needs key_hex,input_hex")?;
    let d = columns.require("input_hex", "needs key_hex,input_hex")?;
    let mut out = csvio::writer(&args.output)?;
    let mut header = columns.header().clone();
    header.push_field("hash");
    out.write_record(&header)?;
    // Rows usually share one key: rebuild the table only when it changes.
    let mut cached: Option<(Vec<u8>, ToeplitzTable)> = None;
    csvio::for_each_row(&mut rdr, &mut out, |row| {
        let at = |col: &str, e: String| Failure(format!("line {}: column `{col}`: {e}", row.line));
        let key = decode_hex(row.text(k)).map_err(|e| at("key_hex", e))?;
        let data = decode_hex(row.text(d)).map_err(|e| at("input_hex", e))?;
        if cached
            .as_ref()
            .is_none_or(|(cached_key, _)| *cached_key != key)
        {
            let table = table_for(&key).map_err(|e| at("key_hex", e))?;
            cached = Some((key, table));
        }
        let (_, table) = cached.as_ref().expect("filled above");
        let hash = table
            .hash(&data)
            .map_err(|e| at("input_hex", e.to_string()))?;
        Ok(vec![format!("{hash:#010x}")])
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
    }
}
