//! The wire constants the parsers in RTL compare against: `rtl/common/wire_pkg.sv`, from
//! `model::wire` (EtherTypes, IP protocol numbers, the RoCEv2 port).

use crate::sv;
use rocenic_model::rss::parse::UNSKIPPED_EXTENSIONS;
use rocenic_model::wire::udp::ROCEV2_PORT;
use rocenic_model::wire::{EtherType, IpProtocol};
use std::fmt::{self, Write};

/// `rtl/common/wire_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "wire_pkg",
        "model/src/wire/mod.rs, ethernet.rs and udp.rs",
        &["Header field values the RTL parsers compare against."],
    )?;
    writeln!(out, "    // EtherTypes (and the two VLAN tag TPIDs).")?;
    for (name, v) in [
        ("IPV4", EtherType::IPV4),
        ("IPV6", EtherType::IPV6),
        ("VLAN", EtherType::VLAN),
        ("QINQ", EtherType::QINQ),
    ] {
        sv::logic(out, format_args!("WIRE_ETHERTYPE_{name}"), 16, v.into())?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "    // IP protocol numbers (IPv4 protocol, IPv6 next header)."
    )?;
    for (name, v) in [
        ("TCP", IpProtocol::TCP),
        ("UDP", IpProtocol::UDP),
        ("HOP_BY_HOP", IpProtocol::HOP_BY_HOP),
        ("IPV6_ROUTE", IpProtocol::IPV6_ROUTE),
        ("IPV6_FRAG", IpProtocol::IPV6_FRAG),
        ("IPV6_OPTS", IpProtocol::IPV6_OPTS),
    ] {
        sv::logic(out, format_args!("WIRE_IPPROTO_{name}"), 8, v.into())?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "    // IPv6 extension headers the RSS walk does not skip (an L3-only hash)."
    )?;
    sv::uint(out, "WIRE_UNSKIPPED_COUNT", UNSKIPPED_EXTENSIONS.len())?;
    for (i, v) in UNSKIPPED_EXTENSIONS.iter().enumerate() {
        sv::logic(out, format_args!("WIRE_UNSKIPPED_{i}"), 8, (*v).into())?;
    }
    writeln!(out)?;
    writeln!(out, "    // RoCEv2's UDP destination port.")?;
    sv::logic(out, "WIRE_ROCEV2_PORT", 16, ROCEV2_PORT.into())?;
    sv::close(out)
}
