//! The sim scenario's syntax: two NICs, `[nic.a]` and `[nic.b]`, each with the tables of a send
//! scenario under its name (`[[nic.a.memory]]`, `[[nic.a.mr]]`, `[[nic.a.qp]]`,
//! `[[nic.a.wr]]`, read by `send/scenario.rs`) and the receive side's: work queues
//! (`[[nic.a.wq]]`), RSS contexts (`[[nic.a.rss]]`) and steering rules (`[[nic.a.rule]]`); and,
//! optionally, the wire between them (`[link]`, `link.rs`).
//! Every table is `deny_unknown_fields`, and every error names the file's line, the table
//! (`[[nic.b.rss]] #1`) and the key, as a send scenario's do. The keys are listed in
//! docs/scenario.md ("Simulation scenarios").

use super::link::LinkTable;
use crate::send::scenario::{
    plain, typed, typed_all, At, Hex, Lines, Scenario as SendTables, ScenarioError, Tables,
};
use serde::Deserialize;
use std::net::IpAddr;
use toml::{Spanned, Value};

/// The NICs' names, in the order they are served.
pub const SIDES: [&str; 2] = ["a", "b"];

/// One NIC's tables.
#[derive(Debug)]
pub struct Side {
    /// `[nic.X]` and its memory, regions, QPs and requests.
    pub send: SendTables,
    pub wq: Vec<At<Wq>>,
    pub rss: Vec<At<Rss>>,
    pub rule: Vec<At<Rule>>,
}

/// The whole file.
#[derive(Debug)]
pub struct Scenario {
    pub sides: [Side; 2],
    /// `[link]`: a lossy wire and the reliable transport.
    pub link: Option<At<LinkTable>>,
}

/// `[[nic.X.wq]]`: a receive work queue and the buffers the host posts to it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wq {
    /// Its number in the NIC's work-queue table (what indirection tables and rules name).
    pub wq: u16,
    /// Protection domain of its buffers' region.
    pub pd: u32,
    /// The QP its completions name; by default the QP whose queue it is.
    pub qpn: Option<u32>,
    /// Receive buffers the host keeps posted.
    pub buffers: u32,
    /// Bytes per buffer.
    pub size: u32,
    /// Host address of the first buffer; the others follow, `size` apart.
    pub addr: u64,
    /// The lkey of the region holding them.
    pub lkey: u32,
    /// A raw-packet queue: frames that are not RoCEv2 land in it whole, when a rule or an RSS
    /// context names it.
    pub raw: Option<bool>,
}

/// `function`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionName {
    Toeplitz,
    Xor,
}

/// `[[nic.X.rss]]`: an RSS context, numbered from 0 in file order.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rss {
    pub function: Option<FunctionName>,
    /// Hashed fields by name (`rocenic rss --fields`'s names).
    pub fields: Option<Vec<String>>,
    pub key: Option<Hex>,
    pub symmetric_key: Option<bool>,
    /// The indirection table: work-queue numbers.
    pub table: Vec<u16>,
}

/// `[[nic.X.rule]]`: a steering rule, numbered from 0 in file order; the keys given must all
/// match, and it sends a frame to a work queue or an RSS context.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub qpn: Option<u32>,
    pub src_ip: Option<IpAddr>,
    pub dst_ip: Option<IpAddr>,
    pub src_port: Option<u16>,
    pub dst_port: Option<u16>,
    /// Action: this work queue, no hash.
    pub wq: Option<u16>,
    /// Action: hash with this RSS context.
    pub rss: Option<u8>,
}

/// The top level: `[nic.a]`, `[nic.b]` and `[link]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    nic: Option<RawNics>,
    link: Option<Spanned<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNics {
    a: Option<Spanned<RawSide>>,
    b: Option<Spanned<RawSide>>,
}

/// One NIC as untyped tables with their spans. The `[nic.X]` keys stay values here and are
/// typed with the send scenario's `[nic]` (so their errors read alike).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    mac: Option<Value>,
    ip: Option<Value>,
    profile: Option<Value>,
    #[serde(default)]
    memory: Vec<Spanned<Value>>,
    #[serde(default)]
    mr: Vec<Spanned<Value>>,
    #[serde(default)]
    qp: Vec<Spanned<Value>>,
    #[serde(default)]
    wr: Vec<Spanned<Value>>,
    #[serde(default)]
    wq: Vec<Spanned<Value>>,
    #[serde(default)]
    rss: Vec<Spanned<Value>>,
    #[serde(default)]
    rule: Vec<Spanned<Value>>,
}

/// Reads a sim scenario.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let lines = Lines::new(text);
    let raw: Raw = toml::from_str(text).map_err(|e| ScenarioError {
        line: e.span().map_or(0, |s| lines.of(s.start)),
        place: None,
        message: top_level(e.message()),
    })?;
    let missing = |side: &str| ScenarioError {
        line: 0,
        place: None,
        message: format!("missing table [nic.{side}]"),
    };
    let nics = raw.nic.ok_or_else(|| missing("a"))?;
    let a = nics.a.ok_or_else(|| missing("a"))?;
    let b = nics.b.ok_or_else(|| missing("b"))?;
    let a = side(&lines, SIDES[0], a);
    let b = side(&lines, SIDES[1], b);
    let link = raw
        .link
        .map(|v| typed::<LinkTable>(&lines, None, "link", None, v))
        .transpose();
    // The first error in the file, whichever table it is in.
    let first = [a.as_ref().err(), b.as_ref().err(), link.as_ref().err()]
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
        sides: [a?, b?],
        link: link?,
    })
}

/// One NIC's tables, typed.
fn side(lines: &Lines, name: &'static str, raw: Spanned<RawSide>) -> Result<Side, ScenarioError> {
    let span = raw.span();
    let raw = raw.into_inner();
    let mut nic = toml::Table::new();
    for (key, value) in [("mac", raw.mac), ("ip", raw.ip), ("profile", raw.profile)] {
        if let Some(v) = value {
            nic.insert(key.into(), v);
        }
    }
    let tables = Tables {
        nic: Spanned::new(span, Value::Table(nic)),
        memory: raw.memory,
        mr: raw.mr,
        qp: raw.qp,
        wr: raw.wr,
    };
    let send = tables.typed(lines, Some(name));
    let wq = typed_all(lines, Some(name), "wq", raw.wq);
    let rss = typed_all(lines, Some(name), "rss", raw.rss);
    let rule = typed_all(lines, Some(name), "rule", raw.rule);
    let first = [
        send.as_ref().err(),
        wq.as_ref().err(),
        rss.as_ref().err(),
        rule.as_ref().err(),
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
    Ok(Side {
        send: send?,
        wq: wq?,
        rss: rss?,
        rule: rule?,
    })
}

/// serde's message about the file's structure (a table or key outside the two NICs' tables, a
/// value of the wrong kind for one) in the file's terms.
fn top_level(message: &str) -> String {
    let m = plain(message, &[], "table or key");
    m.replace("expected a or b", "expected [nic.a] or [nic.b]")
        .replace(
            "expected nic or link",
            "expected [nic.a], [nic.b] or [link]",
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text).unwrap_err().render("s.toml")
    }

    const NICS: &str = "[nic.a]\nmac = \"02:00:00:00:00:0a\"\nip = [\"10.0.0.1\"]\n\
                        [nic.b]\nmac = \"02:00:00:00:00:0b\"\nip = [\"10.0.0.2\"]\n";

    #[test]
    fn both_nics_and_their_tables() {
        let text = format!(
            "{NICS}[[nic.b.wq]]\nwq = 4\npd = 1\nbuffers = 8\nsize = 2048\naddr = 0x100000\n\
             lkey = 0x200\n[[nic.b.rss]]\nfields = [\"src-ipv4\"]\nsymmetric_key = true\n\
             table = [4]\n[[nic.b.rule]]\nqpn = 0x31\nwq = 4\n[[nic.a.qp]]\nqpn = 0x11\n\
             type = \"ud\"\npd = 1\nrq = 0\n"
        );
        let s = parse(&text).unwrap();
        let [a, b] = &s.sides;
        assert_eq!(a.send.nic.item.mac.0[5], 0x0a);
        assert_eq!(a.send.qp[0].item.rq, Some(0));
        assert_eq!(a.send.qp[0].place.to_string(), "[[nic.a.qp]] #1");
        assert_eq!(a.send.qp[0].line, 21);
        assert_eq!(b.wq[0].item.buffers, 8);
        assert_eq!(b.wq[0].line, 7);
        assert_eq!(b.rss[0].item.table, [4]);
        assert_eq!(b.rule[0].item.wq, Some(4));
        assert_eq!(b.send.nic.place.to_string(), "[nic.b]");
    }

    #[test]
    fn errors_name_the_nic_the_table_and_the_key() {
        let text = format!("{NICS}[[nic.b.wq]]\nwq = 4\npd = 1\nbufers = 8\n");
        assert!(
            err(&text).starts_with("s.toml:7: [[nic.b.wq]] #1: unknown key \"bufers\" (expected"),
            "{}",
            err(&text)
        );
        let text = format!("{NICS}[[nic.a.rss]]\ntable = [-1]\n");
        assert_eq!(
            err(&text),
            "s.toml:7: [[nic.a.rss]] #1: key \"table\": invalid value: integer -1, expected an \
             integer 0..=65535"
        );
        let text = format!("{NICS}[[nic.a.rule]]\nqpn = 1\nqueue = 2\n");
        assert!(
            err(&text).contains("[[nic.a.rule]] #1: unknown key \"queue\""),
            "{}",
            err(&text)
        );
        let text = "[nic.a]\nmac = \"02:00:00:00:00:0a\"\nip = [\"10.0.0.1\"]\nmtu = 3\n\
                    [nic.b]\nmac = \"02:00:00:00:00:0b\"\nip = [\"10.0.0.2\"]\n";
        assert!(err(text).starts_with("s.toml:4: unknown"), "{}", err(text));
        assert!(err(text).contains("\"mtu\""), "{}", err(text));
        let text = format!("{NICS}[nic.c]\nmac = 1\n");
        assert!(
            err(&text).starts_with("s.toml:7: unknown"),
            "{}",
            err(&text)
        );
        assert!(err(&text).contains("\"c\""), "{}", err(&text));
        let text = "[nic.a]\nmac = \"02:00:00:00:00:0a\"\nip = [\"10.0.0.1\"]\n";
        assert_eq!(err(text), "s.toml: missing table [nic.b]");
        let text = "[nic.a]\nmac = \"02:00:00:00:00\"\nip = []\n[nic.b]\n";
        assert!(
            err(text).starts_with("s.toml:1: [nic.a]: key \"mac\": \"02:00:00:00:00\" is not"),
            "{}",
            err(text)
        );
        let text = "[nic.a]\nip = []\n[nic.b]\nmac = \"02:00:00:00:00:0b\"\nip = []\n";
        assert_eq!(err(text), "s.toml:1: [nic.a]: missing key \"mac\"");
    }
}
