//! `rocenic rss --config FILE.toml`: the NIC's whole steering, as its registers hold it: RSS
//! contexts (function, hashed fields, key, an explicit indirection table) and steering rules,
//! first match wins. The keys follow a simulation scenario's `[[nic.X.rss]]` and
//! `[[nic.X.rule]]` (docs/scenario.md), with `queue` for a rule's queue.
//!
//! ```toml
//! queues = 8                                   # the histogram's rows (default: the largest queue named, + 1)
//!
//! [[rss]]                                      # context 0: what no rule takes
//! fields = ["src-ipv4", "dst-ipv4", "src-port-udp", "dst-port-udp"]
//! symmetric_key = true
//! table = [0, 1, 2, 3]
//!
//! [[rule]]                                     # RoCEv2 to QP 0x11 on queue 7, unhashed
//! qpn = 0x11
//! queue = 7
//! ```

use super::rule::MatchKeys;
use super::{check_cover, choose_key, parse_fields, JobContext};
use crate::toeplitz::decode_hex;
use rocenic_model::nic::{DEFAULT_CONTEXTS, DEFAULT_RULES};
use rocenic_model::rss::{check_table_size, Action, Context, Function, HashFields, Rule};
use serde::Deserialize;
use std::net::IpAddr;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    queues: Option<u16>,
    #[serde(default)]
    rss: Vec<RssContext>,
    #[serde(default)]
    rule: Vec<RuleKeys>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RssContext {
    function: Option<String>,
    fields: Option<Vec<String>>,
    key: Option<String>,
    #[serde(default)]
    symmetric_key: bool,
    table: Vec<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleKeys {
    qpn: Option<u32>,
    src_ip: Option<IpAddr>,
    dst_ip: Option<IpAddr>,
    src_port: Option<u16>,
    dst_port: Option<u16>,
    queue: Option<u16>,
    rss: Option<u8>,
}

/// What the file configures.
pub struct Config {
    pub contexts: Vec<JobContext>,
    pub rules: Vec<Rule>,
    /// The histogram's rows.
    pub queues: u16,
}

/// Reads a configuration; errors name the table (`[[rss]] #1`, from 0, as the NIC numbers them).
pub fn parse(text: &str) -> Result<Config, String> {
    let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
    if file.rss.len() > DEFAULT_CONTEXTS {
        return Err(format!(
            "{} [[rss]] contexts; the NIC has {DEFAULT_CONTEXTS}",
            file.rss.len()
        ));
    }
    if file.rule.len() > DEFAULT_RULES {
        return Err(format!(
            "{} [[rule]] tables; the NIC has {DEFAULT_RULES} steering rules",
            file.rule.len()
        ));
    }
    let mut largest = 0u16;
    let mut contexts = Vec::new();
    for (i, c) in file.rss.iter().enumerate() {
        let at = |why: String| format!("[[rss]] #{i}: {why}");
        let function = match c.function.as_deref() {
            None | Some("toeplitz") => Function::Toeplitz,
            Some("xor") => Function::Xor,
            Some(other) => {
                return Err(at(format!(
                    "key \"function\": `{other}` is neither \"toeplitz\" nor \"xor\""
                )))
            }
        };
        let fields = match &c.fields {
            Some(names) => {
                parse_fields(&names.join(",")).map_err(|e| at(format!("key \"fields\": {e}")))?
            }
            None => HashFields::DEFAULT,
        };
        if c.key.is_some() && c.symmetric_key {
            return Err(at("keys \"key\" and \"symmetric_key\" both given".into()));
        }
        let given = match &c.key {
            Some(hex) => Some(decode_hex(hex).map_err(|e| at(format!("key \"key\": {e}")))?),
            None => None,
        };
        let key = choose_key(fields, given, c.symmetric_key);
        let context =
            Context::new(function, fields, &key).map_err(|e| at(format!("key \"key\": {e}")))?;
        check_cover(function, fields, &key).map_err(at)?;
        check_table_size(c.table.len()).map_err(|e| at(format!("key \"table\": {e}")))?;
        largest = largest.max(c.table.iter().copied().max().unwrap_or(0));
        contexts.push(JobContext {
            context,
            key,
            table: c.table.clone(),
        });
    }
    let mut rules = Vec::new();
    for (i, r) in file.rule.iter().enumerate() {
        let at = |why: String| format!("[[rule]] #{i}: {why}");
        let action =
            match (r.queue, r.rss) {
                (Some(q), None) => {
                    largest = largest.max(q);
                    Action::Queue(q)
                }
                (None, Some(c)) if usize::from(c) < contexts.len() => Action::Context(c),
                (None, Some(c)) => {
                    return Err(at(format!(
                        "key \"rss\": context {c}, and the file has {} (one per [[rss]], from 0)",
                        contexts.len()
                    )))
                }
                _ => return Err(at(
                    "a rule needs exactly one of \"queue\" and \"rss\": a frame goes to a queue \
                     or to an RSS context"
                        .into(),
                )),
            };
        let keys = MatchKeys {
            qpn: r.qpn,
            src_ip: r.src_ip,
            dst_ip: r.dst_ip,
            src_port: r.src_port,
            dst_port: r.dst_port,
        };
        rules.push(keys.rule(action).map_err(at)?);
    }
    let needed = largest + 1;
    let queues = match file.queues {
        Some(q) if q < needed => {
            return Err(format!(
                "queues = {q}, but a table or rule names queue {largest}"
            ))
        }
        Some(q) => q,
        None => needed,
    };
    Ok(Config {
        contexts,
        rules,
        queues,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_and_rules_in_file_order() {
        let Ok(c) = parse(
            "[[rss]]\ntable = [0, 1]\n[[rss]]\nfunction = \"xor\"\nfields = [\"src-ipv4\"]\ntable = [2, 3, 4, 5]\n\
             [[rule]]\nqpn = 0x11\nqueue = 9\n[[rule]]\ndst_port = 4791\nrss = 1\n",
        ) else {
            panic!("refused")
        };
        assert_eq!(c.contexts.len(), 2);
        assert_eq!(c.contexts[1].context.function, Function::Xor);
        assert_eq!(c.contexts[1].table, [2, 3, 4, 5]);
        assert_eq!(c.rules[0].action, Action::Queue(9));
        assert_eq!(
            (c.rules[0].value.qpn, c.rules[0].mask.qpn),
            (0x11, 0xFF_FFFF)
        );
        assert_eq!(c.rules[1].action, Action::Context(1));
        assert_eq!(c.rules[1].mask.dst_port, 0xFFFF);
        assert_eq!(c.queues, 10);
    }

    #[test]
    fn what_is_refused_is_named() {
        let bad = |text: &str| match parse(text) {
            Err(e) => e,
            Ok(_) => panic!("accepted: {text}"),
        };
        assert!(bad("[[rss]]\ntable = [0, 1, 2]\n").starts_with("[[rss]] #0: key \"table\""));
        assert!(bad("[[rss]]\ntable = [0]\n[[rule]]\nrss = 1\n").contains("context 1"));
        assert!(bad("[[rule]]\nqueue = 1\nrss = 0\n").contains("exactly one"));
        assert!(bad("[[rule]]\nqpn = 0x1000000\nqueue = 1\n").contains("out of range"));
        assert!(bad("[[rss]]\ntable = [0]\nkey = \"00\"\nsymmetric_key = true\n").contains("both"));
        assert!(bad("[[rss]]\ntable = [0]\nbogus = 1\n").contains("bogus"));
        assert!(bad("queues = 2\n[[rule]]\nqueue = 5\n").contains("names queue 5"));
        assert!(bad("[[rss]]\ntable = [0]\nfields = [\"src-ipv6\", \"dst-ipv6\", \"src-port-tcp\", \"dst-port-tcp\", \"bth-qpn\"]\n")
            .contains("52-byte key"));
    }
}
