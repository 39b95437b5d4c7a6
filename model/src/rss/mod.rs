//! Receive-side scaling: which fields feed the hash, and the indirection table
//! (docs/reference.md §2).
//!
//! "Classify first, distribute after": a parser reduces a packet to a [`FlowTuple`]; the context's
//! [`HashFields`] pick the bytes of that tuple that form the hash input; the hash ([`Function`])
//! indexes an [`IndirectionTable`] that names the receive queue.

use crate::toeplitz::{self, Toeplitz};
use core::fmt;

pub mod parse;
pub mod regs;
pub mod steer;
pub use parse::{classify, ParseFlags, Parsed};
pub use steer::{
    distribute, distribute_by, distribute_with, steer, Action, ContextView, Meta, Rule, SteeringKey,
};

/// Which tuple fields feed the hash: the bits of verbs' `ibv_rx_hash_fields`, plus the BTH
/// destination QP (DPDK's `RTE_ETH_RSS_IB_BTH`), which verbs has no bit for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HashFields(pub u32);

impl HashFields {
    /// IPv4 source address.
    pub const SRC_IPV4: Self = Self(1 << 0);
    /// IPv4 destination address.
    pub const DST_IPV4: Self = Self(1 << 1);
    /// IPv6 source address.
    pub const SRC_IPV6: Self = Self(1 << 2);
    /// IPv6 destination address.
    pub const DST_IPV6: Self = Self(1 << 3);
    /// TCP source port.
    pub const SRC_PORT_TCP: Self = Self(1 << 4);
    /// TCP destination port.
    pub const DST_PORT_TCP: Self = Self(1 << 5);
    /// UDP source port.
    pub const SRC_PORT_UDP: Self = Self(1 << 6);
    /// UDP destination port.
    pub const DST_PORT_UDP: Self = Self(1 << 7);
    /// The 24-bit destination QP of an InfiniBand BTH (RoCEv2 or native IB); rocenic's bit.
    pub const BTH_DEST_QPN: Self = Self(1 << 12);
    /// No field: every packet hashes to 0.
    pub const NONE: Self = Self(0);
    /// The CLI default: IPv4 and IPv6 addresses plus TCP and UDP ports.
    pub const DEFAULT: Self = Self(0xFF);

    /// Every named field with its CLI name, in hash-input order.
    pub const NAMES: [(&'static str, Self); 9] = [
        ("src-ipv4", Self::SRC_IPV4),
        ("dst-ipv4", Self::DST_IPV4),
        ("src-ipv6", Self::SRC_IPV6),
        ("dst-ipv6", Self::DST_IPV6),
        ("src-port-tcp", Self::SRC_PORT_TCP),
        ("dst-port-tcp", Self::DST_PORT_TCP),
        ("src-port-udp", Self::SRC_PORT_UDP),
        ("dst-port-udp", Self::DST_PORT_UDP),
        ("bth-qpn", Self::BTH_DEST_QPN),
    ];

    /// Whether every field of `other` is selected.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of two sets of fields.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The longest hash input these fields can select, in bytes: a packet has IPv4 or IPv6
    /// addresses, TCP or UDP ports, and a BTH next to either (RoCEv2, or an IPoIB packet's
    /// inner header). A Toeplitz key must be 4 bytes longer.
    pub const fn longest_input(self) -> usize {
        const fn n(fields: HashFields, f: HashFields, bytes: usize) -> usize {
            if fields.contains(f) {
                bytes
            } else {
                0
            }
        }
        let v4 = n(self, Self::SRC_IPV4, 4) + n(self, Self::DST_IPV4, 4);
        let v6 = n(self, Self::SRC_IPV6, 16) + n(self, Self::DST_IPV6, 16);
        let tcp = n(self, Self::SRC_PORT_TCP, 2) + n(self, Self::DST_PORT_TCP, 2);
        let udp = n(self, Self::SRC_PORT_UDP, 2) + n(self, Self::DST_PORT_UDP, 2);
        let ip = if v4 > v6 { v4 } else { v6 };
        let ports = if tcp > udp { tcp } else { udp };
        ip + ports + n(self, Self::BTH_DEST_QPN, 3)
    }

    /// Looks a field up by its CLI name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, field)| field)
    }
}

impl core::ops::BitOr for HashFields {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

/// The addresses of a packet's (innermost) IP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IpPair {
    /// No IP header was parsed.
    None,
    /// IPv4 source and destination.
    V4 {
        /// Source address.
        src: [u8; 4],
        /// Destination address.
        dst: [u8; 4],
    },
    /// IPv6 source and destination.
    V6 {
        /// Source address.
        src: [u8; 16],
        /// Destination address.
        dst: [u8; 16],
    },
}

/// The transport a port pair belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L4 {
    /// No transport header was parsed (or it is not one RSS hashes).
    None,
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// What a parser learned of a packet that RSS may hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowTuple {
    /// The IP addresses.
    pub ip: IpPair,
    /// The transport of `src_port`/`dst_port`.
    pub l4: L4,
    /// Transport source port (valid when `l4` is not `None`).
    pub src_port: u16,
    /// Transport destination port.
    pub dst_port: u16,
    /// An IP fragment: its ports (and any BTH) cannot be trusted, so only L3 fields are hashed.
    pub fragment: bool,
    /// The BTH destination QP, when the packet carries a BTH (RoCEv2 or native IB).
    pub bth_dest_qpn: Option<u32>,
}

impl FlowTuple {
    /// A tuple with nothing parsed.
    pub const EMPTY: Self = FlowTuple {
        ip: IpPair::None,
        l4: L4::None,
        src_port: 0,
        dst_port: 0,
        fragment: false,
        bth_dest_qpn: None,
    };

    /// The same flow seen from the other end.
    pub const fn reversed(self) -> Self {
        let ip = match self.ip {
            IpPair::None => IpPair::None,
            IpPair::V4 { src, dst } => IpPair::V4 { src: dst, dst: src },
            IpPair::V6 { src, dst } => IpPair::V6 { src: dst, dst: src },
        };
        FlowTuple {
            ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
            ..self
        }
    }
}

/// Which fields a hash actually covered (what a NIC reports next to the hash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HashType(pub u8);

impl HashType {
    /// IPv4 addresses were hashed.
    pub const IPV4: Self = Self(1 << 0);
    /// IPv6 addresses were hashed.
    pub const IPV6: Self = Self(1 << 1);
    /// TCP ports were hashed.
    pub const TCP: Self = Self(1 << 2);
    /// UDP ports were hashed.
    pub const UDP: Self = Self(1 << 3);
    /// The BTH destination QP was hashed.
    pub const BTH: Self = Self(1 << 4);

    /// Every kind with its name, in report order.
    pub const NAMES: [(&'static str, Self); 5] = [
        ("ipv4", Self::IPV4),
        ("ipv6", Self::IPV6),
        ("tcp", Self::TCP),
        ("udp", Self::UDP),
        ("bth", Self::BTH),
    ];

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl fmt::Display for HashType {
    /// The covered fields' names joined by `|`, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Self::NAMES.iter().filter(|(_, t)| self.contains(*t));
        match names.next() {
            None => f.write_str("none"),
            Some((first, _)) => {
                f.write_str(first)?;
                names.try_for_each(|(name, _)| write!(f, "|{name}"))
            }
        }
    }
}

/// The longest hash input: two IPv6 addresses, two ports and a 3-byte QPN.
pub const MAX_HASH_INPUT: usize = 16 + 16 + 2 + 2 + 3;

/// The bytes a tuple contributes to the hash, in network byte order: source address,
/// destination address, source port, destination port, BTH destination QP (3 bytes, as on the
/// wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashInput {
    bytes: [u8; MAX_HASH_INPUT],
    len: usize,
    /// The fields that went in.
    pub hash_type: HashType,
}

impl HashInput {
    /// The input bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn push(&mut self, field: &[u8]) {
        self.bytes[self.len..self.len + field.len()].copy_from_slice(field);
        self.len += field.len();
    }

    /// Selects the bytes of `tuple` that `fields` names.
    ///
    /// A field applies only to packets that have it: IPv4 bits to IPv4 packets, TCP port bits to
    /// TCP. Fragments contribute their addresses only.
    pub fn new(tuple: &FlowTuple, fields: HashFields) -> Self {
        let mut input = HashInput {
            bytes: [0; MAX_HASH_INPUT],
            len: 0,
            hash_type: HashType(0),
        };
        let mut ty = 0;
        match &tuple.ip {
            IpPair::None => {}
            IpPair::V4 { src, dst } => {
                let (s, d) = (
                    fields.contains(HashFields::SRC_IPV4),
                    fields.contains(HashFields::DST_IPV4),
                );
                if s {
                    input.push(src);
                }
                if d {
                    input.push(dst);
                }
                if s || d {
                    ty |= HashType::IPV4.0;
                }
            }
            IpPair::V6 { src, dst } => {
                let (s, d) = (
                    fields.contains(HashFields::SRC_IPV6),
                    fields.contains(HashFields::DST_IPV6),
                );
                if s {
                    input.push(src);
                }
                if d {
                    input.push(dst);
                }
                if s || d {
                    ty |= HashType::IPV6.0;
                }
            }
        }
        if !tuple.fragment {
            let port_fields = match tuple.l4 {
                L4::Tcp => Some((
                    HashFields::SRC_PORT_TCP,
                    HashFields::DST_PORT_TCP,
                    HashType::TCP,
                )),
                L4::Udp => Some((
                    HashFields::SRC_PORT_UDP,
                    HashFields::DST_PORT_UDP,
                    HashType::UDP,
                )),
                L4::None => None,
            };
            if let Some((src_field, dst_field, l4_type)) = port_fields {
                let (s, d) = (fields.contains(src_field), fields.contains(dst_field));
                if s {
                    input.push(&tuple.src_port.to_be_bytes());
                }
                if d {
                    input.push(&tuple.dst_port.to_be_bytes());
                }
                if s || d {
                    ty |= l4_type.0;
                }
            }
            if let Some(qpn) = tuple.bth_dest_qpn {
                if fields.contains(HashFields::BTH_DEST_QPN) {
                    input.push(&qpn.to_be_bytes()[1..]);
                    ty |= HashType::BTH.0;
                }
            }
        }
        input.hash_type = HashType(ty);
        input
    }
}

/// The hash function of an RSS context.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Function {
    /// Toeplitz with the context's key.
    #[default]
    Toeplitz,
    /// XOR of the input's 32-bit words ([`toeplitz::hash_xor`]).
    Xor,
}

/// An RSS context: function, fields and key (the indirection table is kept apart so that its
/// storage can be chosen by the caller).
#[derive(Clone, Debug)]
pub struct Context {
    /// The hash function.
    pub function: Function,
    /// The hashed fields.
    pub fields: HashFields,
    toeplitz: Toeplitz,
}

impl Context {
    /// A context with a key of 4..=52 bytes.
    pub fn new(
        function: Function,
        fields: HashFields,
        key: &[u8],
    ) -> Result<Self, toeplitz::Error> {
        Ok(Context {
            function,
            fields,
            toeplitz: Toeplitz::new(key)?,
        })
    }

    /// Replaces the key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<(), toeplitz::Error> {
        self.toeplitz.set_key(key)
    }

    /// Hashes a tuple: the hash and the fields it covered.
    ///
    /// Fails only when the selected fields are longer than the key covers (IPv6 with ports and a
    /// BTH QPN needs a 52-byte key).
    pub fn hash(&self, tuple: &FlowTuple) -> Result<(u32, HashType), toeplitz::Error> {
        let input = HashInput::new(tuple, self.fields);
        let hash = match self.function {
            Function::Toeplitz => self.toeplitz.hash(input.as_bytes())?,
            Function::Xor => toeplitz::hash_xor(input.as_bytes()),
        };
        Ok((hash, input.hash_type))
    }
}

/// The largest indirection table, as DPDK allows: 2^16 entries.
pub const MAX_TABLE_LOG_SIZE: u32 = 16;

/// A table size that is not a power of two in `1..=2^16`, or a queue list that is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The number of entries is not a power of two in `1..=65536`.
    BadSize(usize),
    /// Round-robin fill was asked for zero queues.
    NoQueues,
    /// An entry index past the end of the table.
    IndexOutOfRange(usize),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::BadSize(n) if n.is_power_of_two() => write!(
                f,
                "indirection table size {n} is too large: at most {} entries",
                1u32 << MAX_TABLE_LOG_SIZE
            ),
            TableError::BadSize(n) => write!(
                f,
                "indirection table size {n} is not a power of two (1 to {} entries)",
                1u32 << MAX_TABLE_LOG_SIZE
            ),
            TableError::NoQueues => f.write_str("at least one queue is needed"),
            TableError::IndexOutOfRange(i) => write!(f, "entry {i} is past the end of the table"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TableError {}

/// Whether a table of `len` entries is allowed: a power of two up to 2^16. Callers that size
/// storage check first, so that a bad size is refused before anything is allocated.
pub fn check_table_size(len: usize) -> Result<(), TableError> {
    if !len.is_power_of_two() || len > 1 << MAX_TABLE_LOG_SIZE {
        return Err(TableError::BadSize(len));
    }
    Ok(())
}

/// The indirection table: `queue = entries[hash & (len − 1)]`, over caller-chosen storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndirectionTable<S> {
    entries: S,
}

impl<S: AsRef<[u16]> + AsMut<[u16]>> IndirectionTable<S> {
    /// Wraps storage whose length is a power of two up to 2^16.
    pub fn new(entries: S) -> Result<Self, TableError> {
        check_table_size(entries.as_ref().len())?;
        Ok(IndirectionTable { entries })
    }

    /// Fills entry `i` with queue `i mod queues`, as drivers do by default.
    pub fn fill_round_robin(&mut self, queues: u16) -> Result<(), TableError> {
        if queues == 0 {
            return Err(TableError::NoQueues);
        }
        for (i, e) in self.entries.as_mut().iter_mut().enumerate() {
            *e = (i % usize::from(queues)) as u16;
        }
        Ok(())
    }

    /// Sets one entry.
    pub fn set(&mut self, index: usize, queue: u16) -> Result<(), TableError> {
        let slot = self
            .entries
            .as_mut()
            .get_mut(index)
            .ok_or(TableError::IndexOutOfRange(index))?;
        *slot = queue;
        Ok(())
    }

    /// The table's entries.
    pub fn entries(&self) -> &[u16] {
        self.entries.as_ref()
    }

    /// The entry index a hash selects.
    pub fn index_for(&self, hash: u32) -> usize {
        hash as usize & (self.entries.as_ref().len() - 1)
    }

    /// The queue a hash selects.
    pub fn queue_for(&self, hash: u32) -> u16 {
        self.entries.as_ref()[self.index_for(hash)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp4() -> FlowTuple {
        FlowTuple {
            ip: IpPair::V4 {
                src: [66, 9, 149, 187],
                dst: [161, 142, 100, 80],
            },
            l4: L4::Tcp,
            src_port: 2794,
            dst_port: 1766,
            fragment: false,
            bth_dest_qpn: None,
        }
    }

    #[test]
    fn input_order_and_type() {
        let i = HashInput::new(&tcp4(), HashFields::DEFAULT);
        assert_eq!(
            i.as_bytes(),
            &[66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6]
        );
        assert_eq!(i.hash_type, HashType(HashType::IPV4.0 | HashType::TCP.0));
        assert_eq!(i.hash_type.to_string(), "ipv4|tcp");
        assert_eq!(HashType(0).to_string(), "none");
        assert_eq!(HashType(0x1F).to_string(), "ipv4|ipv6|tcp|udp|bth");
    }

    #[test]
    fn longest_inputs() {
        assert_eq!(HashFields::NONE.longest_input(), 0);
        assert_eq!(HashFields::DEFAULT.longest_input(), 36);
        let all = HashFields::DEFAULT | HashFields::BTH_DEST_QPN;
        assert_eq!(all.longest_input(), MAX_HASH_INPUT);
        assert_eq!(
            (HashFields::SRC_IPV4 | HashFields::BTH_DEST_QPN).longest_input(),
            7
        );
        // TCP ports and a BTH together: IPoIB carrying TCP.
        let mut t = tcp4();
        t.bth_dest_qpn = Some(1);
        let f = HashFields::SRC_PORT_TCP | HashFields::DST_PORT_TCP | HashFields::BTH_DEST_QPN;
        assert_eq!(HashInput::new(&t, f).as_bytes().len(), f.longest_input());
    }

    #[test]
    fn fields_apply_only_to_their_protocol() {
        // UDP port bits do not select TCP ports; IPv6 bits do not select IPv4 addresses.
        let f = HashFields::SRC_IPV6 | HashFields::SRC_PORT_UDP;
        let i = HashInput::new(&tcp4(), f);
        assert_eq!(i.as_bytes(), &[] as &[u8]);
        assert_eq!(i.hash_type, HashType(0));
    }

    #[test]
    fn fragments_hash_l3_only() {
        let mut t = tcp4();
        t.fragment = true;
        t.bth_dest_qpn = Some(0x12_3456);
        let i = HashInput::new(&t, HashFields::DEFAULT | HashFields::BTH_DEST_QPN);
        assert_eq!(i.as_bytes().len(), 8);
        assert_eq!(i.hash_type, HashType::IPV4);
    }

    #[test]
    fn bth_qpn_is_three_wire_bytes() {
        let mut t = tcp4();
        t.l4 = L4::Udp;
        t.bth_dest_qpn = Some(0x12_3456);
        let i = HashInput::new(&t, HashFields::BTH_DEST_QPN);
        assert_eq!(i.as_bytes(), &[0x12, 0x34, 0x56]);
        assert_eq!(i.hash_type, HashType::BTH);
    }

    #[test]
    fn context_hashes_reference_vector() {
        let ctx = Context::new(
            Function::Toeplitz,
            HashFields::DEFAULT,
            &toeplitz::MICROSOFT_KEY,
        )
        .unwrap();
        assert_eq!(ctx.hash(&tcp4()).unwrap().0, 0x51cc_c178);
    }

    #[test]
    fn indirection_table() {
        assert_eq!(
            IndirectionTable::new([0u16; 3]).unwrap_err(),
            TableError::BadSize(3)
        );
        assert!(IndirectionTable::new(&mut [0u16; 0][..]).is_err());
        let mut t = IndirectionTable::new([0u16; 8]).unwrap();
        assert_eq!(t.fill_round_robin(0), Err(TableError::NoQueues));
        t.fill_round_robin(3).unwrap();
        assert_eq!(t.entries(), &[0, 1, 2, 0, 1, 2, 0, 1]);
        assert_eq!(t.queue_for(0xFFFF_FFF9), 1);
        t.set(1, 7).unwrap();
        assert_eq!(t.queue_for(9), 7);
        assert_eq!(t.set(8, 0), Err(TableError::IndexOutOfRange(8)));
    }
}
