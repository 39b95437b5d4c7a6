//! The scenario file's syntax: TOML read with serde into the tables below, every one
//! `deny_unknown_fields`, so a misspelt or missing key is an error that names the key, its table
//! and the table's line (`send.toml:14: [[wr]] #3: unknown key "lenght" (expected one of …)`).
//! What the values mean, and whether they agree with each other, is `check.rs`'s job; the keys
//! are listed in docs/scenario.md.
//!
//! The document is read twice over: first as tables of untyped values with the line each starts
//! on, then each table into its type, so that an error inside a table knows which one it is.
//!
//! `rocenic sim` (`sim/scenario.rs`) reads the same tables under each of its two NICs
//! (`[[nic.a.qp]]`), with the receive side's keys that `check.rs` refuses in a send scenario.

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::net::IpAddr;
use toml::{Spanned, Value};

/// A table of the file with where it is: its line, and for an array of tables its number
/// (from 1, in file order).
#[derive(Debug)]
pub struct At<T> {
    pub item: T,
    pub line: usize,
    pub place: Place,
}

/// Which table of the file: `[nic]` or `[[wr]] #3`; in a sim scenario `[nic.a]` or
/// `[[nic.a.wr]]` #3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The NIC whose table it is (`rocenic sim`: `a` or `b`); `None` in a send scenario.
    pub side: Option<&'static str>,
    pub table: &'static str,
    /// The number of an array-of-tables entry, from 1; `None` for `[nic]`.
    pub number: Option<usize>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match (self.side, self.number) {
            (Some(side), Some(_)) => format!("nic.{side}.{}", self.table),
            (Some(side), None) => format!("nic.{side}"),
            (None, _) => self.table.to_string(),
        };
        match self.number {
            Some(n) => write!(f, "[[{name}]] #{n}"),
            None => write!(f, "[{name}]"),
        }
    }
}

/// A message about a place of the file (line 0: the file as a whole).
#[derive(Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub line: usize,
    pub place: Option<Place>,
    pub message: String,
}

impl ScenarioError {
    /// The message as the command prints it, after the file's name.
    pub fn render(&self, file: &str) -> String {
        let line = match self.line {
            0 => String::new(),
            n => format!(":{n}"),
        };
        match self.place {
            Some(p) => format!("{file}{line}: {p}: {}", self.message),
            None => format!("{file}{line}: {}", self.message),
        }
    }
}

/// The whole file.
#[derive(Debug)]
pub struct Scenario {
    pub nic: At<Nic>,
    pub memory: Vec<At<Memory>>,
    pub mr: Vec<At<Mr>>,
    pub qp: Vec<At<Qp>>,
    pub wr: Vec<At<Wr>>,
}

/// `[nic]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nic {
    pub mac: Mac,
    /// Source addresses, at most one per family.
    pub ip: Vec<IpAddr>,
    /// Entropy profile name (`rocenic entropy --profile`); linux when absent.
    pub profile: Option<String>,
}

/// `[[memory]]`: host memory and its initial contents.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub addr: u64,
    pub size: u64,
    pub fill: Option<FillName>,
    pub hex: Option<Hex>,
}

/// `fill`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FillName {
    Zero,
    Counter,
}

/// `[[mr]]`: a memory region.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mr {
    pub lkey: u32,
    pub pd: u32,
    pub addr: u64,
    pub length: u64,
    #[serde(default)]
    pub access: Vec<AccessName>,
}

/// Verbs access flags without the `IBV_ACCESS_` prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessName {
    LocalWrite,
    RemoteWrite,
    RemoteRead,
    RemoteAtomic,
}

/// `[[qp]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qp {
    pub qpn: u32,
    #[serde(rename = "type")]
    pub qp_type: QpKind,
    pub pd: u32,
    pub mtu: Option<u32>,
    pub psn: Option<u32>,
    pub dest_qpn: Option<u32>,
    pub qkey: Option<u32>,
    pub av: Option<QpAv>,
    /// `rocenic sim`: the work queue of its own receive queue.
    pub rq: Option<u16>,
    /// `rocenic sim`: the work queue of the shared receive queue it takes from.
    pub srq: Option<u16>,
    /// `rocenic sim`: an RSS QP (UD), landing in the queue the steering picks.
    pub rss: Option<bool>,
    /// `rocenic sim` with a `[link]`, RC: the QP's own verbs `timeout` (1..=31).
    pub timeout: Option<u8>,
    /// The same: `retry_cnt` (0..=7).
    pub retry_cnt: Option<u8>,
    /// The same: `rnr_retry` (0..=7, 7 forever).
    pub rnr_retry: Option<u8>,
    /// The same: `min_rnr_timer` (0..=31), the code its RNR NAKs carry.
    pub min_rnr_timer: Option<u8>,
}

/// `type`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QpKind {
    Rc,
    Ud,
    /// A raw-packet QP: its SENDs are whole Ethernet frames, its TSO requests an Ethernet
    /// template's segments (the model's engine only).
    Raw,
}

/// An RC QP's address vector (`[[qp]] av`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpAv {
    pub ip: IpAddr,
    pub mac: Mac,
    pub flow_label: Option<u32>,
    pub vlan: Option<u16>,
    pub pcp: Option<u8>,
    pub tclass: Option<u8>,
    pub hop_limit: Option<u8>,
}

/// A UD work request's address vector (`[[wr]] av`): the QP-level keys and the destination
/// QP and Q_Key.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrAv {
    pub ip: IpAddr,
    pub mac: Mac,
    pub qpn: u32,
    pub qkey: Option<u32>,
    pub flow_label: Option<u32>,
    pub vlan: Option<u16>,
    pub pcp: Option<u8>,
    pub tclass: Option<u8>,
    pub hop_limit: Option<u8>,
}

/// `[[wr]]`: one work request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wr {
    pub qpn: u32,
    pub id: u64,
    pub opcode: OpName,
    pub sge: Option<Vec<Sge>>,
    pub inline: Option<Hex>,
    pub imm: Option<u32>,
    pub remote_addr: Option<u64>,
    pub rkey: Option<u32>,
    pub av: Option<WrAv>,
    pub signaled: Option<bool>,
    pub solicited: Option<bool>,
    /// Posted this many times in a row, ids `id`, `id + 1`, …
    pub repeat: Option<u32>,
    /// TSO: payload bytes per segment.
    pub mss: Option<u16>,
    /// TSO: the link (IPoIB on a UD QP, Ethernet on a raw one), IP and TCP headers every
    /// segment starts with.
    pub header: Option<Hex>,
}

/// `opcode`'s values: the completion CSV's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpName {
    Send,
    SendImm,
    RdmaWrite,
    RdmaWriteImm,
    RdmaRead,
    Tso,
}

/// One gather entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// A MAC address written `02:00:00:00:00:01` (or with `-`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mac(pub [u8; 6]);

impl<'de> Deserialize<'de> for Mac {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let parts: Vec<&str> = s.split([':', '-']).collect();
        let mut mac = [0u8; 6];
        let ok = parts.len() == 6
            && parts
                .iter()
                .zip(&mut mac)
                .all(|(p, b)| p.len() == 2 && u8::from_str_radix(p, 16).map(|v| *b = v).is_ok());
        if ok {
            Ok(Mac(mac))
        } else {
            Err(D::Error::custom(format!(
                "\"{s}\" is not a MAC address (six hex pairs, as 02:00:00:00:00:01)"
            )))
        }
    }
}

/// Bytes written as hex digit pairs; whitespace and `_` between pairs are ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hex(pub Vec<u8>);

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let digits: Vec<u8> = s
            .bytes()
            .filter(|b| !b.is_ascii_whitespace() && *b != b'_')
            .collect();
        let bad = |why: &str| D::Error::custom(format!("not hex bytes: {why}"));
        if !digits.len().is_multiple_of(2) {
            return Err(bad("an odd number of digits"));
        }
        digits
            .chunks(2)
            .map(|p| {
                std::str::from_utf8(p)
                    .ok()
                    .and_then(|p| u8::from_str_radix(p, 16).ok())
                    .ok_or_else(|| bad(&format!("\"{}\"", String::from_utf8_lossy(p))))
            })
            .collect::<Result<Vec<u8>, _>>()
            .map(Hex)
    }
}

/// The file's top level as untyped tables with their spans.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    nic: Option<Spanned<Value>>,
    #[serde(default)]
    memory: Vec<Spanned<Value>>,
    #[serde(default)]
    mr: Vec<Spanned<Value>>,
    #[serde(default)]
    qp: Vec<Spanned<Value>>,
    #[serde(default)]
    wr: Vec<Spanned<Value>>,
}

/// Where each line of the text starts, to number the line of a byte offset in log time (a
/// scenario may hold 10^5 tables).
pub struct Lines(Vec<usize>);

impl Lines {
    pub fn new(text: &str) -> Lines {
        let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1);
        Lines(std::iter::once(0).chain(breaks).collect())
    }

    /// The line (from 1) of byte `at`.
    pub fn of(&self, at: usize) -> usize {
        self.0.partition_point(|&start| start <= at)
    }
}

/// Reads a scenario.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let lines = Lines::new(text);
    let raw: Raw = toml::from_str(text).map_err(|e| ScenarioError {
        line: e.span().map_or(0, |s| lines.of(s.start)),
        place: None,
        message: plain(e.message(), &[], "table"),
    })?;
    let nic = raw.nic.ok_or(ScenarioError {
        line: 0,
        place: None,
        message: "missing table [nic]".into(),
    })?;
    let tables = Tables {
        nic,
        memory: raw.memory,
        mr: raw.mr,
        qp: raw.qp,
        wr: raw.wr,
    };
    tables.typed(&lines, None)
}

/// One NIC's send tables as untyped values with their spans: the whole of a send scenario, or
/// one side of a sim scenario.
pub struct Tables {
    pub nic: Spanned<Value>,
    pub memory: Vec<Spanned<Value>>,
    pub mr: Vec<Spanned<Value>>,
    pub qp: Vec<Spanned<Value>>,
    pub wr: Vec<Spanned<Value>>,
}

impl Tables {
    /// Each table into its type; the first error in the file (by line), whichever table it is
    /// in. `side` names the NIC in a sim scenario.
    pub fn typed(
        self,
        lines: &Lines,
        side: Option<&'static str>,
    ) -> Result<Scenario, ScenarioError> {
        let nic = typed(lines, side, "nic", None, self.nic);
        let memory = typed_all(lines, side, "memory", self.memory);
        let mr = typed_all(lines, side, "mr", self.mr);
        let qp = typed_all(lines, side, "qp", self.qp);
        let wr = typed_all(lines, side, "wr", self.wr);
        let first = [
            nic.as_ref().err(),
            memory.as_ref().err(),
            mr.as_ref().err(),
            qp.as_ref().err(),
            wr.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|e| e.line);
        if let Some(e) = first {
            return Err(ScenarioError {
                line: e.line,
                place: e.place,
                message: e.message.clone(),
            });
        }
        Ok(Scenario {
            nic: nic?,
            memory: memory?,
            mr: mr?,
            qp: qp?,
            wr: wr?,
        })
    }
}

/// Every table of an array into its type, numbered from 1.
pub fn typed_all<T: for<'de> Deserialize<'de>>(
    lines: &Lines,
    side: Option<&'static str>,
    table: &'static str,
    values: Vec<Spanned<Value>>,
) -> Result<Vec<At<T>>, ScenarioError> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| typed(lines, side, table, Some(i + 1), v))
        .collect()
}

/// One table into its type, or the error naming its line, its place and the key.
pub fn typed<T: for<'de> Deserialize<'de>>(
    lines: &Lines,
    side: Option<&'static str>,
    table: &'static str,
    number: Option<usize>,
    value: Spanned<Value>,
) -> Result<At<T>, ScenarioError> {
    let line = lines.of(value.span().start);
    let place = Place {
        side,
        table,
        number,
    };
    let item = value.into_inner().try_into::<T>().map_err(|e| {
        // The error's text ends with the path of keys it happened under: "in `sge.length`".
        let shown = e.to_string();
        let path: Vec<&str> = shown
            .lines()
            .filter_map(|l| l.strip_prefix("in `")?.strip_suffix('`'))
            .flat_map(|p| p.split('.'))
            .collect();
        ScenarioError {
            line,
            place: Some(place),
            message: plain(e.message(), &path, "key"),
        }
    })?;
    Ok(At { item, line, place })
}

/// serde's wording in the file's terms: keys (or at the top level, tables) rather than fields,
/// each named with its dotted path, and integer types as ranges.
pub fn plain(message: &str, path: &[&str], what: &str) -> String {
    let key = |name: &str| {
        let mut p = path.to_vec();
        p.push(name);
        format!("\"{}\"", p.join("."))
    };
    let names = |list: &str| list.replace('`', "");
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let expected = expected
            .trim_start_matches(", ")
            .replace("there are no fields", "no keys here");
        return format!("unknown {what} {} ({})", key(name), names(&expected));
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        return format!("missing key {}", key(rest.trim_end_matches('`')));
    }
    let mut m = message.to_string();
    for (ty, range) in [
        ("u8", "an integer 0..=255"),
        ("u16", "an integer 0..=65535"),
        ("u32", "an integer 0..=0xFFFFFFFF"),
        ("u64", "an integer 0..=2^63-1 (TOML's largest)"),
    ] {
        m = m.replace(&format!("expected {ty}"), &format!("expected {range}"));
    }
    m = names(&m);
    if path.is_empty() {
        m
    } else {
        format!("key \"{}\": {m}", path.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text).unwrap_err().render("s.toml")
    }

    const NIC: &str = "[nic]\nmac = \"02:00:00:00:00:01\"\nip = [\"10.0.0.1\"]\n";

    #[test]
    fn errors_name_the_key_the_table_and_its_line() {
        let wr = "[[wr]]\nqpn = 0x11\nid = 1\nopcode = \"send\"\n";
        let text = format!("{NIC}{wr}{wr}{wr}lenght = 3\n");
        assert_eq!(
            err(&text),
            "s.toml:12: [[wr]] #3: unknown key \"lenght\" (expected one of qpn, id, opcode, \
             sge, inline, imm, remote_addr, rkey, av, signaled, solicited, repeat, mss, header)"
        );
        let text = format!("{NIC}[[wr]]\nqpn = 1\nopcode = \"send\"\n");
        assert_eq!(err(&text), "s.toml:4: [[wr]] #1: missing key \"id\"");
        let text =
            format!("{NIC}{wr}sge = [{{ addr = 0, length = -1, lkey = 1 }}]\n[[qp]]\nqpn = 1\n");
        assert_eq!(
            err(&text),
            "s.toml:4: [[wr]] #1: key \"sge.length\": invalid value: integer -1, expected an \
             integer 0..=0xFFFFFFFF"
        );
        let text = format!("{NIC}{wr}av = {{ ip = \"::1\", mac = \"02:00:00:00:00:01\" }}\n");
        assert_eq!(err(&text), "s.toml:4: [[wr]] #1: missing key \"av.qpn\"");
        let text = format!("{NIC}{wr}sge = [{{ addr = 0, lenght = 1, lkey = 1 }}]\n");
        assert!(
            err(&text).starts_with("s.toml:4: [[wr]] #1: unknown key \"sge.lenght\" (expected"),
            "{}",
            err(&text)
        );
        let text = format!("{NIC}[[wx]]\n");
        assert!(
            err(&text).starts_with("s.toml:4: unknown table \"wx\" (expected"),
            "{}",
            err(&text)
        );
        assert_eq!(err("[[qp]]\n"), "s.toml: missing table [nic]");
        assert!(err("[nic\n").starts_with("s.toml:1: "), "{}", err("[nic\n"));
        let text = "[nic]\nmac = \"02:00:00:00:00\"\nip = []\n";
        assert_eq!(
            err(text),
            "s.toml:1: [nic]: key \"mac\": \"02:00:00:00:00\" is not a MAC address (six hex \
             pairs, as 02:00:00:00:00:01)"
        );
    }

    #[test]
    fn line_numbers() {
        let l = Lines::new("a\nbc\n\nd");
        let got: Vec<usize> = (0..8).map(|i| l.of(i)).collect();
        assert_eq!(got, [1, 1, 2, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn values_of_every_kind() {
        let text = format!(
            "{NIC}profile = \"rfc-v2\"\n[[memory]]\naddr = 0x10000\nsize = 16\nhex = \"00 11_22\"\n\
             [[mr]]\nlkey = 0x100\npd = 1\naddr = 0x10000\nlength = 0x8000\naccess = [\"local_write\"]\n\
             [[wr]]\nqpn = 0x11\nid = 1\nopcode = \"rdma_write_imm\"\ninline = \"abcd\"\n"
        );
        let s = parse(&text).unwrap();
        assert_eq!(s.nic.item.profile.as_deref(), Some("rfc-v2"));
        assert_eq!(s.memory[0].item.hex, Some(Hex(vec![0, 0x11, 0x22])));
        assert_eq!(s.memory[0].line, 5);
        assert_eq!(s.mr[0].item.access, [AccessName::LocalWrite]);
        assert_eq!(s.wr[0].item.opcode, OpName::RdmaWriteImm);
        assert_eq!(s.wr[0].item.inline, Some(Hex(vec![0xab, 0xcd])));
        assert_eq!(s.wr[0].place.to_string(), "[[wr]] #1");
        let bad = format!("{NIC}[[memory]]\naddr = 0\nsize = 1\nhex = \"abc\"\n");
        assert!(err(&bad).contains("key \"hex\": not hex bytes: an odd number of digits"));
    }
}
