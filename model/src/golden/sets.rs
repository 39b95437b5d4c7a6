//! The vector sets of `rocenic golden export` and `rocenic golden check` (docs/golden.md): each
//! set's name, file and columns, and the edge cases every export starts with.
//!
//! One definition for everyone: the CLI writes and recognises files by these columns, `cargo
//! xtask gen` renders the column tables of `docs/golden-sets.md` from them, and the tests plant
//! a mismatch in every expected column listed here. Column names are those of the commands that
//! compute the same thing one at a time (`rocenic entropy`, `toeplitz`, `rss`, `icrc`, `tso`).

use crate::toeplitz::{symmetric_key, MICROSOFT_KEY};

/// The format named in every export's `manifest.json`; a change to a set's columns or to what
/// a column means takes a new number.
pub const FORMAT: &str = "rocenic-golden/1";

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A value given to the model and the device under test.
    Input,
    /// A result: the model's value on export, the device's when a file is checked.
    Expected,
}

/// How a column's cells are written, and so how an expected value is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `0x` hex or decimal; compared as numbers, so `0xc3a8`, `0xC3A8` and `50088` agree.
    Number,
    /// Plain hex bytes, no `0x`; compared without regard to case.
    Bytes,
    /// One name from a fixed list.
    Name,
    /// Names joined by `|`, `none` for no name; compared as sets.
    Names,
    /// Numbers joined by `|`; empty for none.
    Numbers,
}

/// One column of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    /// The header name.
    pub name: &'static str,
    /// Input or expected result.
    pub role: Role,
    /// How its cells are written.
    pub format: Format,
    /// Whether a file must have it for the set to be recognised.
    pub required: bool,
    /// What it holds, in a sentence.
    pub doc: &'static str,
}

const fn input(name: &'static str, format: Format, doc: &'static str) -> Column {
    Column {
        name,
        role: Role::Input,
        format,
        required: true,
        doc,
    }
}

const fn expected(name: &'static str, format: Format, doc: &'static str) -> Column {
    Column {
        name,
        role: Role::Expected,
        format,
        required: true,
        doc,
    }
}

/// The optional `profile` column of the entropy sets.
const PROFILE: Column = Column {
    name: "profile",
    role: Role::Input,
    format: Format::Name,
    required: false,
    doc: "the entropy profile (linux, rfc-v2, rfc-v1, rxe); an absent column or an empty cell \
          takes `check --profile`, else the profile of the manifest.json beside the file, else linux",
};

const FLOW_LABEL: Column = expected(
    "flow_label",
    Format::Number,
    "the 20-bit IPv6 flow label on the wire",
);
const UDP_SPORT: Column = expected("udp_sport", Format::Number, "the RoCEv2 UDP source port");

/// One vector set: a CSV file of inputs and expected results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    /// Its name, as `check` reports it.
    pub name: &'static str,
    /// The file `export` writes.
    pub file: &'static str,
    /// What it checks, in a sentence.
    pub doc: &'static str,
    /// Its columns, in file order: inputs first.
    pub columns: &'static [Column],
}

impl Set {
    /// The input columns, in file order.
    pub fn inputs(&self) -> impl Iterator<Item = &'static Column> {
        self.columns.iter().filter(|c| c.role == Role::Input)
    }

    /// The expected-result columns, in file order.
    pub fn expected(&self) -> impl Iterator<Item = &'static Column> {
        self.columns.iter().filter(|c| c.role == Role::Expected)
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// Entropy keyed on a QP pair (docs/reference.md §1).
pub const ENTROPY_QP: Set = Set {
    name: "entropy-qp",
    file: "entropy-qp.csv",
    doc: "IPv6 flow label and RoCEv2 UDP source port of a QP pair (`rocenic entropy --mode qp`)",
    columns: &[
        PROFILE,
        input("lqpn", Format::Number, "the local (source) QPN"),
        input("rqpn", Format::Number, "the remote (destination) QPN"),
        input(
            "fl",
            Format::Number,
            "the address vector's flow label, 0 = none; all 32 bits count (0x100000 is not 0)",
        ),
        input(
            "qp_type",
            Format::Name,
            "rc or ud (only rfc-v1 tells them apart)",
        ),
        FLOW_LABEL,
        UDP_SPORT,
    ],
};

/// Entropy keyed on RDMA CM service ports (docs/reference.md §1).
pub const ENTROPY_CM: Set = Set {
    name: "entropy-cm",
    file: "entropy-cm.csv",
    doc: "IPv6 flow label and RoCEv2 UDP source port of an RDMA CM connection \
          (`rocenic entropy --mode cm`)",
    columns: &[
        PROFILE,
        input("src_port", Format::Number, "the CM source service port"),
        input(
            "dst_port",
            Format::Number,
            "the CM destination service port",
        ),
        input(
            "fl",
            Format::Number,
            "the source address's sin6_flowinfo, 0 = none or IPv4; masked to 20 bits",
        ),
        input(
            "lqpn",
            Format::Number,
            "the local QPN: the fallback when the flow label comes out 0, and rxe's port",
        ),
        input("rqpn", Format::Number, "the remote QPN of the fallback"),
        FLOW_LABEL,
        UDP_SPORT,
    ],
};

/// The bare Toeplitz hash (docs/reference.md §2).
pub const TOEPLITZ: Set = Set {
    name: "toeplitz",
    file: "toeplitz.csv",
    doc: "the Toeplitz hash of a byte string under a key (`rocenic toeplitz`)",
    columns: &[
        input("key_hex", Format::Bytes, "the key, 4 to 52 bytes"),
        input(
            "input_hex",
            Format::Bytes,
            "the hash input, at most the key's length less 4 bytes",
        ),
        expected("hash", Format::Number, "the 32-bit hash"),
    ],
};

/// RSS of a whole received frame (docs/reference.md §2).
pub const RSS: Set = Set {
    name: "rss",
    file: "rss.csv",
    doc: "parse, hash and queue of an Ethernet frame under one RSS context (`rocenic rss`)",
    columns: &[
        input("function", Format::Name, "toeplitz or xor"),
        input(
            "key_hex",
            Format::Bytes,
            "the Toeplitz key, 4 to 52 bytes, covering the longest input the fields select \
             (xor ignores it)",
        ),
        input(
            "fields",
            Format::Names,
            "the hashed fields: src-ipv4, dst-ipv4, src-ipv6, dst-ipv6, src-port-tcp, \
             dst-port-tcp, src-port-udp, dst-port-udp, bth-qpn",
        ),
        input(
            "table_size",
            Format::Number,
            "indirection table entries, a power of two from 1 to 65536",
        ),
        input(
            "queues",
            Format::Number,
            "receive queues, 1 to 65535: entry i holds queue i mod queues unless `table` is given",
        ),
        input(
            "table",
            Format::Numbers,
            "the table's entries when not round-robin (table_size of them, each below queues); \
             empty for round-robin",
        ),
        input(
            "frame_hex",
            Format::Bytes,
            "the received Ethernet frame (pcap link type 1)",
        ),
        expected(
            "hash",
            Format::Number,
            "the RSS hash (0 when the fields select nothing)",
        ),
        expected(
            "hash_type",
            Format::Names,
            "the fields the hash covered: ipv4, ipv6, tcp, udp, bth",
        ),
        expected("queue", Format::Number, "the receive queue"),
        expected(
            "flags",
            Format::Names,
            "what the parser found: vlan, ipoib, ipv4, ipv6, tcp, udp, bth, frag, l3only, \
             malformed, deep",
        ),
    ],
};

/// The RoCEv2 ICRC (docs/reference.md §3, §8).
pub const ICRC: Set = Set {
    name: "icrc",
    file: "icrc.csv",
    doc: "the invariant CRC of a whole RoCEv2 frame (`rocenic icrc`)",
    columns: &[
        input(
            "frame_hex",
            Format::Bytes,
            "an Ethernet RoCEv2 frame whose last 4 bytes hold its ICRC (exported correct)",
        ),
        expected(
            "icrc",
            Format::Number,
            "the ICRC as Wireshark shows it: the 4 wire bytes in order as one number",
        ),
    ],
};

/// TCP segmentation offload (docs/reference.md §5).
pub const TSO: Set = Set {
    name: "tso",
    file: "tso.csv",
    doc: "the segments of an oversized TCP send (`rocenic tso`); the sends are in \
          tso-sends.pcap beside the file",
    columns: &[
        input(
            "index",
            Format::Number,
            "the send's record index in tso-sends.pcap, from 0; rows in increasing order",
        ),
        input(
            "mss",
            Format::Number,
            "TCP payload bytes per segment, 1 to 9000",
        ),
        expected("segments", Format::Number, "how many segments"),
        expected(
            "bytes",
            Format::Number,
            "the segments' bytes on the wire, added up",
        ),
        expected(
            "digest",
            Format::Bytes,
            "SHA-256 of the segments' bytes one after another, in order",
        ),
    ],
};

/// Every set, in the order `export` writes them.
pub const SETS: [&Set; 6] = [&ENTROPY_QP, &ENTROPY_CM, &TOEPLITZ, &RSS, &ICRC, &TSO];

/// The set called `name`.
pub fn by_name(name: &str) -> Option<&'static Set> {
    SETS.into_iter().find(|s| s.name == name)
}

/// QPNs every entropy export pairs with each other: 0, 1, the ends of the 24-bit range, the
/// multicast QPN, and both sides of the bits where the RTL splits its products (16 to 18) and
/// where the port folds the flow label (14).
pub const QPNS: [u32; 17] = [
    0, 1, 2, 0x12, 0x34, 0x3FFF, 0x4000, 0xFFFF, 0x1_0000, 0x1_FFFF, 0x2_0000, 0x3_FFFF, 0x4_0000,
    0x7F_FFFF, 0x80_0000, 0xFF_FFFE, 0xFF_FFFF,
];

/// Application flow labels (QP mode) and `sin6_flowinfo` values (CM mode): none, the 14-bit
/// fold point, the 20-bit maximum, `0x100000` (non-zero with zero low 20 bits: no fallback in
/// QP mode, masked to 0 in CM mode), and bits above 19 alone or with low bits.
pub const FLOW_LABELS: [u32; 12] = [
    0,
    1,
    0x3A8,
    0x3FFF,
    0x4000,
    0xA_BCDE,
    0xF_FFFF,
    0x10_0000,
    0x10_0001,
    0x7FF0_0000,
    0xFFF0_0000,
    0xFFFF_FFFF,
];

/// RDMA CM service ports: 0, 65535, the RoCEv2 port, the reference's worked example (18515),
/// and the sign and ephemeral boundaries.
pub const CM_PORTS: [u16; 9] = [0, 1, 4791, 18515, 0x7FFF, 0x8000, 0xC000, 0xFFFE, 0xFFFF];

/// The 40-byte symmetric key (`0x6d5a` repeated).
pub const SYMMETRIC_KEY_40: [u8; 40] = symmetric_key::<40>();
/// The 52-byte symmetric key.
pub const SYMMETRIC_KEY_52: [u8; 52] = symmetric_key::<52>();
/// A 52-byte key of all ones: every key window is `0xFFFFFFFF`.
pub const ONES_KEY_52: [u8; 52] = [0xFF; 52];
/// The shortest key: 4 bytes, covering only the empty input.
pub const SHORTEST_KEY: [u8; 4] = [0x6d, 0x5a, 0x56, 0xda];

/// Keys every Toeplitz and RSS export uses: 40 and 52 bytes, and the shortest.
pub const KEYS: [&[u8]; 5] = [
    &MICROSOFT_KEY,
    &SYMMETRIC_KEY_40,
    &SYMMETRIC_KEY_52,
    &ONES_KEY_52,
    &SHORTEST_KEY,
];

/// The hash input of all ones, cut to the length an edge case needs (up to the longest a
/// 52-byte key covers).
pub const ONES_INPUT: [u8; 48] = [0xFF; 48];

/// Hash input lengths tried under every key that covers them: empty, one byte, IPv4 addresses,
/// IPv4 with ports, IPv6 addresses, IPv6 with ports, IPv6 with ports and a BTH QPN, and the
/// longest a 52-byte key covers.
pub const INPUT_LENGTHS: [usize; 8] = [0, 1, 8, 12, 32, 36, 39, 48];

/// MSS values every TSO export uses: 1, small, the usual Ethernet ones, and the 9000-byte
/// maximum of the segment buffer.
pub const MSS: [u16; 7] = [1, 2, 536, 1448, 1460, 8960, 9000];

/// Indirection table sizes: 1 entry, small, the CLI's default, and the 2^16 maximum.
pub const TABLE_SIZES: [u32; 5] = [1, 2, 128, 4096, 65536];

/// Queue counts: 1, one that does not divide a power of two, and the most a table names.
pub const QUEUES: [u16; 4] = [1, 3, 4, 0xFFFF];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_are_unique_and_roles_present() {
        for set in SETS {
            for (i, a) in set.columns.iter().enumerate() {
                for b in &set.columns[i + 1..] {
                    assert_ne!(a.name, b.name, "set {}: column named twice", set.name);
                }
            }
            assert!(set.inputs().count() >= 1, "set {} has no input", set.name);
            assert!(
                set.expected().count() >= 1,
                "set {} has no expected column",
                set.name
            );
            // Inputs first: `export` writes them so, and readers may rely on it.
            let first_expected = set.columns.iter().position(|c| c.role == Role::Expected);
            assert!(
                set.columns[first_expected.unwrap()..]
                    .iter()
                    .all(|c| c.role == Role::Expected),
                "set {}: an input after an expected column",
                set.name
            );
            assert!(set.expected().all(|c| c.required));
        }
    }

    #[test]
    fn names_and_files_are_unique() {
        for (i, a) in SETS.iter().enumerate() {
            assert_eq!(by_name(a.name), Some(*a));
            assert!(a.file.ends_with(".csv") && a.file.starts_with(a.name));
            for b in &SETS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.file, b.file);
            }
        }
        assert_eq!(by_name("nope"), None);
    }

    /// No two sets can be told apart by their required columns alone only if one's required
    /// columns are a subset of the other's: then a header in the larger one's format would match
    /// both.
    #[test]
    fn headers_identify_one_set() {
        for a in SETS {
            for b in SETS {
                if a.name == b.name {
                    continue;
                }
                let covered = a
                    .columns
                    .iter()
                    .filter(|c| c.required)
                    .all(|c| b.column(c.name).is_some());
                assert!(
                    !covered,
                    "a header of set {} also matches {}",
                    b.name, a.name
                );
            }
        }
    }

    #[test]
    fn edge_cases_reach_the_limits() {
        assert!(QPNS.contains(&0) && QPNS.contains(&0xFF_FFFF));
        assert!(QPNS.iter().all(|&q| q <= 0xFF_FFFF));
        assert!(FLOW_LABELS.contains(&0x10_0000) && FLOW_LABELS.iter().any(|f| f >> 20 != 0));
        assert!(CM_PORTS.contains(&0) && CM_PORTS.contains(&0xFFFF));
        assert!(KEYS.iter().any(|k| k.len() == 40) && KEYS.iter().any(|k| k.len() == 52));
        assert_eq!(ONES_INPUT.len(), crate::toeplitz::MAX_INPUT_LEN);
        assert!(INPUT_LENGTHS.iter().all(|&n| n <= ONES_INPUT.len()));
        assert!(MSS.contains(&1) && MSS.contains(&9000));
        assert!(TABLE_SIZES
            .iter()
            .all(|n| n.is_power_of_two() && *n <= 1 << 16));
    }
}
