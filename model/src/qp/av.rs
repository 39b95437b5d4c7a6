//! The address vector: where a QP's (RC) or a work request's (UD) packets go, and how.

use crate::entropy::FLOW_LABEL_MASK;
use crate::wire::{EthernetAddress, Ipv4Address, Ipv6Address};

/// Source and destination IP addresses of one family, so a mixed pair cannot be expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IpPair {
    /// RoCEv2 over IPv4.
    V4 {
        /// Source address.
        src: Ipv4Address,
        /// Destination address.
        dst: Ipv4Address,
    },
    /// RoCEv2 over IPv6: the flow label goes into the IPv6 header.
    V6 {
        /// Source address.
        src: Ipv6Address,
        /// Destination address.
        dst: Ipv6Address,
    },
}

/// An address vector (verbs `struct ibv_ah_attr` for RoCEv2, resolved to MACs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddressVector {
    /// IP source and destination.
    pub ip: IpPair,
    /// Source MAC (the port's).
    pub src_mac: EthernetAddress,
    /// Destination MAC (the next hop's).
    pub dst_mac: EthernetAddress,
    /// 802.1Q VLAN ID (12 bits); `None` sends untagged.
    pub vlan: Option<u16>,
    /// Priority code point of the VLAN tag (3 bits; the service level's low bits).
    pub pcp: u8,
    /// IPv4 TOS / IPv6 traffic class.
    pub traffic_class: u8,
    /// IPv4 TTL / IPv6 hop limit.
    pub hop_limit: u8,
    /// The application's flow label (20 bits); 0 lets the entropy unit derive one.
    pub flow_label: u32,
}

/// A field of an address vector out of its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AvError {
    /// VLAN ID above 0xFFF, or 0xFFF (reserved by 802.1Q).
    Vlan,
    /// PCP above 7.
    Pcp,
    /// Flow label wider than 20 bits.
    FlowLabel,
    /// Hop limit 0: the packet would be dropped at the first hop.
    HopLimit,
}

impl AddressVector {
    /// A vector with the defaults: untagged, PCP 0, traffic class 0, hop limit 64, no flow
    /// label.
    pub const fn new(ip: IpPair, src_mac: EthernetAddress, dst_mac: EthernetAddress) -> Self {
        AddressVector {
            ip,
            src_mac,
            dst_mac,
            vlan: None,
            pcp: 0,
            traffic_class: 0,
            hop_limit: 64,
            flow_label: 0,
        }
    }

    /// Checks every field's range.
    pub const fn validate(&self) -> Result<(), AvError> {
        if let Some(vid) = self.vlan {
            if vid >= 0xFFF {
                return Err(AvError::Vlan);
            }
        }
        if self.pcp > 7 {
            return Err(AvError::Pcp);
        }
        if self.flow_label & !FLOW_LABEL_MASK != 0 {
            return Err(AvError::FlowLabel);
        }
        if self.hop_limit == 0 {
            return Err(AvError::HopLimit);
        }
        Ok(())
    }

    /// Whether packets go over IPv6.
    pub const fn is_ipv6(&self) -> bool {
        matches!(self.ip, IpPair::V6 { .. })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn av4() -> AddressVector {
        AddressVector::new(
            IpPair::V4 {
                src: Ipv4Address::new(192, 168, 1, 1),
                dst: Ipv4Address::new(192, 168, 1, 2),
            },
            EthernetAddress([2, 0, 0, 0, 0, 1]),
            EthernetAddress([2, 0, 0, 0, 0, 2]),
        )
    }

    #[test]
    fn ranges() {
        let ok = av4();
        assert_eq!(ok.validate(), Ok(()));
        assert!(!ok.is_ipv6());
        type Case = (fn(&mut AddressVector), Result<(), AvError>);
        let cases: [Case; 8] = [
            (|a| a.vlan = Some(0xFFE), Ok(())),
            (|a| a.vlan = Some(0xFFF), Err(AvError::Vlan)),
            (|a| a.vlan = Some(u16::MAX), Err(AvError::Vlan)),
            (|a| a.pcp = 7, Ok(())),
            (|a| a.pcp = 8, Err(AvError::Pcp)),
            (|a| a.flow_label = FLOW_LABEL_MASK, Ok(())),
            (
                |a| a.flow_label = FLOW_LABEL_MASK + 1,
                Err(AvError::FlowLabel),
            ),
            (|a| a.hop_limit = 0, Err(AvError::HopLimit)),
        ];
        for (i, (set, want)) in cases.into_iter().enumerate() {
            let mut a = ok;
            set(&mut a);
            assert_eq!(a.validate(), want, "case {i}");
        }
        let v6 = AddressVector {
            ip: IpPair::V6 {
                src: Ipv6Address([0xfd; 16]),
                dst: Ipv6Address([0xfe; 16]),
            },
            ..ok
        };
        assert!(v6.is_ipv6());
    }
}
