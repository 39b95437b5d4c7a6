//! The link layer a frame starts with, named as pcap names it.
//!
//! One type for every consumer: the RSS parser reads Ethernet and native InfiniBand, TSO writes
//! behind Ethernet and IPoIB, and pcap files carry the number.

/// The link-layer header in front of a frame's network layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LinkType {
    /// Ethernet II, with or without 802.1Q/802.1ad tags (`LINKTYPE_ETHERNET`).
    #[default]
    Ethernet,
    /// The 4-byte IPoIB encapsulation header of RFC 4391 §6, EtherType then two reserved bytes,
    /// followed by the IP packet (`LINKTYPE_IPOIB`).
    Ipoib,
    /// Native InfiniBand starting at the LRH (`LINKTYPE_INFINIBAND`).
    Infiniband,
}

impl LinkType {
    /// The pcap link-type number (the global header's `network` field).
    pub const fn pcap(self) -> u32 {
        match self {
            LinkType::Ethernet => 1,
            LinkType::Ipoib => 242,
            LinkType::Infiniband => 247,
        }
    }

    /// The name people know it by.
    pub const fn name(self) -> &'static str {
        match self {
            LinkType::Ethernet => "Ethernet",
            LinkType::Ipoib => "IPoIB",
            LinkType::Infiniband => "InfiniBand",
        }
    }

    /// The link type of a pcap link-type number, `None` for one this crate does not read.
    pub const fn from_pcap(number: u32) -> Option<LinkType> {
        match number {
            1 => Some(LinkType::Ethernet),
            242 => Some(LinkType::Ipoib),
            247 => Some(LinkType::Infiniband),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcap_numbers_round_trip() {
        for link in [LinkType::Ethernet, LinkType::Ipoib, LinkType::Infiniband] {
            assert_eq!(LinkType::from_pcap(link.pcap()), Some(link));
        }
        assert_eq!(LinkType::from_pcap(105), None);
    }
}
