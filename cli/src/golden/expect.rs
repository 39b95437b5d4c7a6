//! What the model expects for one row of a vector set: the one path from input cells to expected
//! cells, taken by `export` to fill its files and by `check` to recompute a device's, so that an
//! export always checks clean.

use crate::csvio::{parse_number, Row};
use crate::toeplitz::decode_hex;
use crate::Failure;
use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::golden::sets::{self, Column, Format, Role, Set};
use rocenic_model::rss::{
    check_table_size, classify, distribute, Context, ContextView, Function, HashFields,
};
use rocenic_model::toeplitz::Toeplitz;
use rocenic_model::tso::{Limits, Segmenter};
use rocenic_model::wire::{LinkType, RoceFrame};
use sha2::{Digest, Sha256};

/// Where each of a set's columns is in a record.
pub struct Layout {
    pub set: &'static Set,
    /// Per column of the set, in set order: its index in the record, if the file has it.
    index: Vec<Option<usize>>,
}

impl Layout {
    /// The columns as `export` writes them: the set's, in order.
    pub fn exported(set: &'static Set) -> Layout {
        Layout {
            set,
            index: (0..set.columns.len()).map(Some).collect(),
        }
    }

    /// The columns of a header that has every required column of `set` once.
    pub fn of_header(set: &'static Set, header: &csv::StringRecord) -> Layout {
        let index = set
            .columns
            .iter()
            .map(|c| header.iter().position(|h| h == c.name))
            .collect();
        Layout { set, index }
    }

    /// The record index of the column called `name`.
    pub fn at(&self, name: &str) -> Option<usize> {
        let i = self.set.columns.iter().position(|c| c.name == name)?;
        self.index[i]
    }

    /// The expected columns with their record index.
    pub fn expected(&self) -> impl Iterator<Item = (&'static Column, usize)> + '_ {
        self.set
            .columns
            .iter()
            .zip(&self.index)
            .filter(|(c, _)| c.role == Role::Expected)
            .map(|(c, i)| (c, i.expect("expected columns are required")))
    }
}

/// A row's cells by column name, with messages naming line and column.
pub struct Cells<'a> {
    pub row: &'a Row<'a>,
    pub layout: &'a Layout,
}

impl Cells<'_> {
    pub fn fail(&self, column: &str, why: impl std::fmt::Display) -> Failure {
        Failure(format!("line {}: column `{column}`: {why}", self.row.line))
    }

    fn text(&self, column: &str) -> &str {
        self.layout
            .at(column)
            .map_or("", |i| self.row.text(i).trim())
    }

    pub fn number(&self, column: &str, max: u64) -> Result<u64, Failure> {
        parse_number(self.text(column), max).map_err(|e| self.fail(column, e))
    }

    fn bytes(&self, column: &str) -> Result<Vec<u8>, Failure> {
        decode_hex(self.text(column)).map_err(|e| self.fail(column, e))
    }
}

/// State kept from row to row: rows usually share a key, and a Toeplitz table takes longer to
/// build than to use.
#[derive(Default)]
pub struct Cache {
    toeplitz: Option<(Vec<u8>, Toeplitz)>,
    rss: Option<(RssKey, Context)>,
}

/// What an RSS context is built from.
type RssKey = (Function, HashFields, Vec<u8>);

/// Where a row's profile comes from when it has no `profile` cell.
pub type DefaultProfile<'a> = dyn FnMut() -> Result<Profile, Failure> + 'a;

/// The expected cells of a row of any set but `tso` (whose input is a pcap record; see
/// [`tso`]), in the set's order of expected columns.
pub fn expected(
    cells: &Cells,
    cache: &mut Cache,
    default_profile: &mut DefaultProfile,
) -> Result<Vec<String>, Failure> {
    let set = cells.layout.set;
    if set.name == sets::ENTROPY_QP.name || set.name == sets::ENTROPY_CM.name {
        entropy(cells, default_profile)
    } else if set.name == sets::TOEPLITZ.name {
        toeplitz(cells, cache)
    } else if set.name == sets::RSS.name {
        rss(cells, cache)
    } else if set.name == sets::ICRC.name {
        icrc(cells)
    } else {
        Err(Failure(format!(
            "set {} is not computed row by row",
            set.name
        )))
    }
}

pub fn parse_profile(text: &str) -> Result<Profile, String> {
    text.parse()
        .map_err(|_| format!("unknown profile `{text}` (linux, rfc-v2, rfc-v1, rxe)"))
}

fn entropy(cells: &Cells, default_profile: &mut DefaultProfile) -> Result<Vec<String>, Failure> {
    const U32: u64 = 0xFFFF_FFFF;
    let profile = match cells.text("profile") {
        "" => default_profile()?,
        text => parse_profile(text).map_err(|e| cells.fail("profile", e))?,
    };
    let request = if cells.layout.set.name == sets::ENTROPY_QP.name {
        Request::Qp {
            lqpn: cells.number("lqpn", U32)? as u32,
            rqpn: cells.number("rqpn", U32)? as u32,
            flow_label: cells.number("fl", U32)? as u32,
            qp_type: match cells.text("qp_type") {
                "" => QpType::Rc,
                text => text
                    .parse()
                    .map_err(|_| cells.fail("qp_type", format!("`{text}` is not rc or ud")))?,
            },
        }
    } else {
        Request::Cm {
            src_port: cells.number("src_port", 0xFFFF)? as u16,
            dst_port: cells.number("dst_port", 0xFFFF)? as u16,
            flowinfo: cells.number("fl", U32)? as u32,
            lqpn: cells.number("lqpn", U32)? as u32,
            rqpn: cells.number("rqpn", U32)? as u32,
        }
    };
    Ok(crate::entropy::format(&profile.compute(&request)).to_vec())
}

fn toeplitz(cells: &Cells, cache: &mut Cache) -> Result<Vec<String>, Failure> {
    let key = cells.bytes("key_hex")?;
    let input = cells.bytes("input_hex")?;
    if cache.toeplitz.as_ref().is_none_or(|(k, _)| *k != key) {
        let hasher = Toeplitz::new(&key).map_err(|e| cells.fail("key_hex", e))?;
        cache.toeplitz = Some((key, hasher));
    }
    let (_, hasher) = cache.toeplitz.as_ref().expect("filled above");
    let hash = hasher
        .hash(&input)
        .map_err(|e| cells.fail("input_hex", e))?;
    Ok(vec![format!("{hash:#010x}")])
}

/// Names joined by `|`, `none` (or nothing) for none.
pub fn split_names(text: &str) -> impl Iterator<Item = &str> {
    text.split('|')
        .map(str::trim)
        .filter(|n| !n.is_empty() && *n != "none")
}

fn rss(cells: &Cells, cache: &mut Cache) -> Result<Vec<String>, Failure> {
    let function = match cells.text("function") {
        "toeplitz" => Function::Toeplitz,
        "xor" => Function::Xor,
        text => return Err(cells.fail("function", format!("`{text}` is not toeplitz or xor"))),
    };
    let key = cells.bytes("key_hex")?;
    let fields = split_names(cells.text("fields")).try_fold(HashFields::NONE, |acc, name| {
        HashFields::from_name(name)
            .map(|f| acc | f)
            .ok_or_else(|| cells.fail("fields", format!("unknown field `{name}`")))
    })?;
    let longest = fields.longest_input();
    if function == Function::Toeplitz && longest + 4 > key.len() {
        return Err(cells.fail(
            "key_hex",
            format!(
                "the fields select up to {longest} bytes, but a {}-byte key covers {}",
                key.len(),
                key.len().saturating_sub(4)
            ),
        ));
    }
    let size = cells.number("table_size", 1 << 16)? as usize;
    check_table_size(size).map_err(|e| cells.fail("table_size", e))?;
    let queues = cells.number("queues", 0xFFFF)?;
    if queues == 0 {
        return Err(cells.fail("queues", "at least one queue is needed"));
    }
    let table: Vec<u16> = match cells.text("table") {
        "" => (0..size).map(|i| (i as u64 % queues) as u16).collect(),
        text => {
            let entries = text
                .split('|')
                .map(|e| parse_number(e, queues - 1).map(|q| q as u16))
                .collect::<Result<Vec<u16>, String>>()
                .map_err(|e| {
                    cells.fail("table", format!("{e} (entries are queues below `queues`)"))
                })?;
            if entries.len() != size {
                return Err(cells.fail(
                    "table",
                    format!("{} entries, but table_size is {size}", entries.len()),
                ));
            }
            entries
        }
    };
    let frame = cells.bytes("frame_hex")?;
    let cache_key = (function, fields, key);
    if cache.rss.as_ref().is_none_or(|(k, _)| *k != cache_key) {
        let context =
            Context::new(function, fields, &cache_key.2).map_err(|e| cells.fail("key_hex", e))?;
        cache.rss = Some((cache_key, context));
    }
    let (_, context) = cache.rss.as_ref().expect("filled above");
    let view = ContextView {
        context,
        table: &table,
    };
    let meta = distribute(&classify(LinkType::Ethernet, &frame), &[], &[view]);
    Ok(vec![
        format!("{:#010x}", meta.hash),
        meta.hash_type.to_string(),
        meta.queue.to_string(),
        meta.flags.to_string(),
    ])
}

/// An ICRC as Wireshark shows it (docs/reference.md §8), as `rocenic icrc` prints it.
pub fn icrc_text(icrc: u32) -> String {
    format!("{:#010x}", u32::from_be_bytes(icrc.to_le_bytes()))
}

fn icrc(cells: &Cells) -> Result<Vec<String>, Failure> {
    let frame = cells.bytes("frame_hex")?;
    let roce = RoceFrame::parse(&frame)
        .map_err(|e| cells.fail("frame_hex", format!("not a RoCEv2 frame: {e}")))?;
    Ok(vec![icrc_text(roce.computed())])
}

/// The expected cells of a `tso` row (segments, bytes, digest) for the send `frame` of a pcap
/// of `link`, with each segment handed to `emit` as it is made.
pub fn tso(
    link: LinkType,
    frame: &[u8],
    mss: u16,
    mut emit: impl FnMut(usize, &[u8]) -> Result<(), Failure>,
) -> Result<Vec<String>, String> {
    let s = Segmenter::from_frame(link, frame, usize::from(mss), Limits::default())
        .map_err(|e| e.to_string())?;
    let (mut digest, mut bytes, mut buf) = (Sha256::new(), 0u64, Vec::new());
    for i in 0..s.segment_count() {
        buf.resize(s.segment_len(i).map_err(|e| e.to_string())?, 0);
        let len = s.write_segment(i, &mut buf).map_err(|e| e.to_string())?;
        digest.update(&buf[..len]);
        bytes += len as u64;
        emit(i, &buf[..len]).map_err(|Failure(e)| e)?;
    }
    Ok(vec![
        s.segment_count().to_string(),
        bytes.to_string(),
        hex(&digest.finalize()),
    ])
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Whether an observed cell agrees with the expected one, by the column's format; `Err` when
/// the cell is not in that format at all (an empty cell is a mismatch, not an error).
pub fn agrees(format: Format, expected: &str, observed: &str) -> Result<bool, String> {
    let observed = observed.trim();
    if observed.is_empty() {
        return Ok(expected.is_empty());
    }
    Ok(match format {
        Format::Number => parse_number(observed, u64::MAX)? == parse_number(expected, u64::MAX)?,
        Format::Bytes => {
            decode_hex(observed)?;
            observed.eq_ignore_ascii_case(expected)
        }
        Format::Name => observed == expected,
        Format::Names => {
            let sorted = |t| {
                let mut v: Vec<&str> = split_names(t).collect();
                v.sort_unstable();
                v
            };
            sorted(observed) == sorted(expected)
        }
        Format::Numbers => {
            let list = |t: &str| {
                t.split('|')
                    .map(|n| parse_number(n, u64::MAX))
                    .collect::<Result<Vec<_>, _>>()
            };
            list(observed)? == list(expected)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_by_format() {
        assert_eq!(agrees(Format::Number, "0xc3a8", "50088"), Ok(true));
        assert_eq!(agrees(Format::Number, "0xc3a8", "0XC3A8"), Ok(true));
        assert_eq!(agrees(Format::Number, "0xc3a8", "0xc3a9"), Ok(false));
        assert_eq!(agrees(Format::Number, "0xc3a8", ""), Ok(false));
        assert!(agrees(Format::Number, "0xc3a8", "c3a8").is_err());
        assert_eq!(agrees(Format::Bytes, "00ab", "00AB"), Ok(true));
        assert_eq!(agrees(Format::Bytes, "00ab", "00ac"), Ok(false));
        assert!(agrees(Format::Bytes, "00ab", "0x00ab").is_err());
        assert_eq!(agrees(Format::Names, "ipv4|tcp", "tcp|ipv4"), Ok(true));
        assert_eq!(agrees(Format::Names, "ipv4|tcp", "ipv4"), Ok(false));
        assert_eq!(agrees(Format::Names, "none", "none"), Ok(true));
        assert_eq!(agrees(Format::Name, "rc", "ud"), Ok(false));
    }

    #[test]
    fn icrc_in_wireshark_order() {
        // Wire bytes 08 c6 15 4a (the value 0x4a15c608 sent least significant byte first).
        assert_eq!(icrc_text(0x4a15_c608), "0x08c6154a");
    }
}
