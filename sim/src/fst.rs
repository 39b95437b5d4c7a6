//! FST traces (`ROCENIC_TRACE=fst`): the VCD a model writes, turned into FST when it closes.
//!
//! Verilator 5.006 builds a model with VCD tracing or with FST tracing, not both, so an FST
//! straight from the model would need a second build of every DUT. Instead a traced run
//! writes its VCD beside the FST it was asked for (`<file>.fst.vcd`), and closing the trace
//! streams that VCD into the FST (one pass, in the size of one value-change block) and removes
//! it. The result is what GTKWave and Surfer open natively: the same scopes, signals, times
//! and values, compressed, typically 5 to 20 times smaller than the VCD.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use fst_writer::{
    FstFileType, FstInfo, FstScopeType, FstSignalId, FstSignalType, FstVarDirection, FstVarType,
};
use vcd::{Command, ReferenceIndex, ScopeType, TimescaleUnit, VarType};

/// How a run's trace is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Value change dump, as Verilator writes it.
    Vcd,
    /// Fast signal trace (GTKWave's format), converted from the VCD when the trace closes.
    Fst,
}

impl TraceFormat {
    /// `ROCENIC_TRACE`: `vcd` (the default when unset or empty) or `fst`; anything else is an
    /// error that names the choices.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("ROCENIC_TRACE") {
            Ok(v) if v.trim().is_empty() => Ok(Self::Vcd),
            Ok(v) => Self::parse(v.trim())
                .ok_or_else(|| format!("ROCENIC_TRACE={v}: not a trace format (vcd or fst)")),
            Err(_) => Ok(Self::Vcd),
        }
    }

    /// `vcd` or `fst`, in any case.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "vcd" => Some(Self::Vcd),
            "fst" => Some(Self::Fst),
            _ => None,
        }
    }

    /// The format a file name asks for: `.fst` is FST, anything else VCD.
    pub fn of_path(path: &Path) -> Self {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("fst") => Self::Fst,
            _ => Self::Vcd,
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Vcd => "vcd",
            Self::Fst => "fst",
        }
    }
}

/// Where the model writes the VCD that becomes `fst`: beside it, `<fst>.vcd`.
pub fn staging_vcd(fst: &Path) -> PathBuf {
    let mut name = fst.as_os_str().to_owned();
    name.push(".vcd");
    PathBuf::from(name)
}

/// Value-change bytes held in memory before a block is written: a long trace stays bounded.
const BLOCK_BYTES: usize = 64 << 20;

/// Writes the VCD `vcd` as the FST `fst`: every scope, variable (aliases kept), time and change.
pub fn vcd_to_fst(vcd: &Path, fst: &Path) -> io::Result<()> {
    vcd_to_fst_in_blocks(vcd, fst, BLOCK_BYTES)
}

/// [`vcd_to_fst`], writing a value-change block whenever `block_bytes` are held (tests make
/// many small blocks with it).
pub fn vcd_to_fst_in_blocks(vcd: &Path, fst: &Path, block_bytes: usize) -> io::Result<()> {
    let at = |e: &dyn std::fmt::Display| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} to {}: {e}", vcd.display(), fst.display()),
        )
    };
    let fst_err = |e: fst_writer::FstWriteError| at(&e);
    let mut commands = vcd::Parser::new(BufReader::new(File::open(vcd)?));

    // The header, up to $enddefinitions: the FST's hierarchy.
    let mut exponent = -12i8;
    let (mut version, mut date) = (String::new(), String::new());
    let mut defs = Vec::new();
    for c in commands.by_ref() {
        match c.map_err(|e| at(&e))? {
            Command::Enddefinitions => break,
            Command::Timescale(n, unit) => {
                exponent = timescale_exponent(n, unit)
                    .ok_or_else(|| at(&"timescale not a power of ten"))?
            }
            Command::Version(v) => version = v.trim().to_string(),
            Command::Date(d) => date = d.trim().to_string(),
            c @ (Command::ScopeDef(..) | Command::Upscope | Command::VarDef(..)) => defs.push(c),
            _ => {}
        }
    }
    let info = FstInfo {
        start_time: 0,
        timescale_exponent: exponent,
        version,
        date,
        file_type: FstFileType::Verilog,
    };
    let mut header = fst_writer::open_fst(fst, &info).map_err(fst_err)?;
    // Each VCD identifier code, as a number ([`code_number`]) less the smallest, to its FST
    // signal and width: a table, since Verilator's codes are dense.
    let numbers: Vec<usize> = defs
        .iter()
        .filter_map(|d| match d {
            Command::VarDef(_, _, code, ..) => Some(code_number(code.to_string().as_bytes())),
            _ => None,
        })
        .collect::<Option<_>>()
        .ok_or_else(|| at(&"an identifier code longer than 4 characters"))?;
    let base = numbers.iter().copied().min().unwrap_or(0);
    let span = numbers.iter().map(|n| n - base + 1).max().unwrap_or(0);
    if span > 1 << 24 {
        return Err(at(&"identifier codes too sparse for a table"));
    }
    let mut ids: Vec<Option<(FstSignalId, usize)>> = vec![None; span];
    let mut numbers = numbers.into_iter();
    for d in defs {
        match d {
            Command::ScopeDef(kind, name) => {
                header.scope(name, "", scope_type(kind)).map_err(fst_err)?
            }
            Command::Upscope => header.up_scope().map_err(fst_err)?,
            Command::VarDef(kind, width, _, name, index) => {
                let n = numbers.next().expect("one number per variable") - base;
                let alias = ids[n].map(|(id, _)| id);
                let name = match index {
                    Some(i @ (ReferenceIndex::BitSelect(_) | ReferenceIndex::Range(..))) => {
                        format!("{name} {i}")
                    }
                    None => name,
                };
                let signal = match kind {
                    VarType::Real => FstSignalType::real(),
                    _ => FstSignalType::bit_vec(width.max(1)),
                };
                let id = header
                    .var(
                        name,
                        signal,
                        var_type(kind),
                        FstVarDirection::Implicit,
                        alias,
                    )
                    .map_err(fst_err)?;
                ids[n].get_or_insert((id, width.max(1) as usize));
            }
            _ => unreachable!("only definitions were kept"),
        }
    }
    let mut body = header.finish().map_err(fst_err)?;

    // The value changes, a line at a time, as Verilator writes them: `#time`, `b<bits> <code>`
    // or `<bit><code>`. Read by hand rather than through the parser, which makes a value per
    // bit: a long run's VCD is gigabytes.
    let input = commands.reader();
    let (mut line, mut bits) = (Vec::new(), Vec::new());
    let mut started = false;
    let mut number = 0u64;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        while matches!(line.last(), Some(b'\n' | b'\r' | b' ' | b'\t')) {
            line.pop();
        }
        let bad = |why: &str| at(&format!("body line {number}: {why}"));
        let (value, code): (&[u8], &[u8]) = match line.first() {
            None | Some(b'$') => continue, // $dumpvars, $end and the like
            Some(b'#') => {
                let t = std::str::from_utf8(&line[1..])
                    .ok()
                    .and_then(|t| t.parse::<u64>().ok())
                    .ok_or_else(|| bad("not a time"))?;
                // fst-writer writes a block only between one time's changes and the next time.
                if started && body.size() > block_bytes {
                    body.flush().map_err(fst_err)?;
                }
                body.time_change(t).map_err(fst_err)?;
                started = true;
                continue;
            }
            Some(b'b' | b'B') => {
                let space = line
                    .iter()
                    .position(|&b| b == b' ')
                    .ok_or_else(|| bad("a vector without its code"))?;
                (&line[1..space], &line[space + 1..])
            }
            Some(b'0' | b'1' | b'x' | b'X' | b'z' | b'Z') => (&line[..1], &line[1..]),
            Some(_) => return Err(bad("not a time or a bit value (real and string values are not traced by rocenic's models)")),
        };
        if !started {
            // Values before the first timestamp belong to time 0.
            body.time_change(0).map_err(fst_err)?;
            started = true;
        }
        let (id, width) = code_number(code.trim_ascii_start())
            .and_then(|n| n.checked_sub(base))
            .and_then(|n| ids.get(n).copied().flatten())
            .ok_or_else(|| bad("a change of an undeclared signal"))?;
        bits.clear();
        bits.extend(value.iter().map(u8::to_ascii_lowercase));
        extend_left(&mut bits, width);
        body.signal_change(id, &bits).map_err(fst_err)?;
    }
    body.finish().map_err(fst_err)?;
    Ok(())
}

/// A VCD identifier code (printable ASCII `!` to `~`, at most 4 of them) as a number, one per
/// code: its characters as digits 1 to 94, the last most significant. Verilator's codes are a
/// fixed number of characters, the first counting fastest, so theirs are one dense range.
fn code_number(code: &[u8]) -> Option<usize> {
    if code.is_empty() || code.len() > 4 {
        return None;
    }
    code.iter().rev().try_fold(0usize, |n, &c| {
        (b'!'..=b'~')
            .contains(&c)
            .then(|| n * 94 + usize::from(c - b'!') + 1)
    })
}

/// A VCD vector may leave out its leading bits: they repeat its first bit when that is `x` or
/// `z`, and are 0 otherwise. FST stores every bit. A longer vector keeps its low bits.
fn extend_left(bits: &mut Vec<u8>, width: usize) {
    if bits.len() > width {
        bits.drain(..bits.len() - width);
    } else if bits.len() < width {
        let fill = match bits.first() {
            Some(&b @ (b'x' | b'z')) => b,
            _ => b'0',
        };
        bits.splice(0..0, std::iter::repeat_n(fill, width - bits.len()));
    }
}

/// The FST timescale (10^exponent s) of a VCD `$timescale n unit`, where n is 1, 10 or 100.
fn timescale_exponent(n: u32, unit: TimescaleUnit) -> Option<i8> {
    let base = match unit {
        TimescaleUnit::S => 0,
        TimescaleUnit::MS => -3,
        TimescaleUnit::US => -6,
        TimescaleUnit::NS => -9,
        TimescaleUnit::PS => -12,
        TimescaleUnit::FS => -15,
    };
    let digits = match n {
        1 => 0,
        10 => 1,
        100 => 2,
        _ => return None,
    };
    Some(base + digits)
}

fn scope_type(kind: ScopeType) -> FstScopeType {
    match kind {
        ScopeType::Task => FstScopeType::Task,
        ScopeType::Function => FstScopeType::Function,
        ScopeType::Begin => FstScopeType::Begin,
        ScopeType::Fork => FstScopeType::Fork,
        _ => FstScopeType::Module,
    }
}

fn var_type(kind: VarType) -> FstVarType {
    match kind {
        VarType::Event => FstVarType::Event,
        VarType::Integer => FstVarType::Integer,
        VarType::Parameter => FstVarType::Parameter,
        VarType::Real => FstVarType::Real,
        VarType::Reg => FstVarType::Reg,
        VarType::Time => FstVarType::Time,
        _ => FstVarType::Wire,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_vectors_extend_as_vcd_says() {
        let mut b = b"1".to_vec();
        extend_left(&mut b, 4);
        assert_eq!(b, b"0001");
        let mut b = b"x1".to_vec();
        extend_left(&mut b, 4);
        assert_eq!(b, b"xxx1");
        let mut b = b"z".to_vec();
        extend_left(&mut b, 3);
        assert_eq!(b, b"zzz");
        let mut b = b"10110".to_vec();
        extend_left(&mut b, 3);
        assert_eq!(b, b"110");
    }

    #[test]
    fn codes_are_numbered_one_to_one() {
        assert_eq!(code_number(b"!"), Some(1));
        assert_ne!(code_number(b"C"), code_number(b"C!!"));
        assert_eq!(
            code_number(b"\"!!").unwrap(),
            code_number(b"!!!").unwrap() + 1
        );
        assert_eq!(
            code_number(b"!\"!").unwrap(),
            code_number(b"~!!").unwrap() + 1
        );
        assert_eq!(code_number(b""), None);
        assert_eq!(code_number(b"!!!!!"), None);
        assert_eq!(code_number(b"a b"), None);
    }

    #[test]
    fn timescales_map_to_powers_of_ten() {
        assert_eq!(timescale_exponent(1, TimescaleUnit::PS), Some(-12));
        assert_eq!(timescale_exponent(100, TimescaleUnit::NS), Some(-7));
        assert_eq!(timescale_exponent(3, TimescaleUnit::NS), None);
    }

    #[test]
    fn formats_by_name_and_extension() {
        assert_eq!(TraceFormat::parse("FST"), Some(TraceFormat::Fst));
        assert_eq!(TraceFormat::parse("ghw"), None);
        assert_eq!(
            TraceFormat::of_path(Path::new("a/run.fst")),
            TraceFormat::Fst
        );
        assert_eq!(TraceFormat::of_path(Path::new("run.vcd")), TraceFormat::Vcd);
        assert_eq!(
            staging_vcd(Path::new("t/run.fst")),
            Path::new("t/run.fst.vcd")
        );
    }
}
