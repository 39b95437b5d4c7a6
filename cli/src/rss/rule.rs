//! A steering rule's match keys as the TOML files write them (`rocenic rss --config`'s
//! `[[rule]]` and a simulation scenario's `[[nic.X.rule]]`): each key given is compared whole,
//! the rest are masked out.

use rocenic_model::qp::QPN_MAX;
use rocenic_model::rss::steer::v4_mapped;
use rocenic_model::rss::{Action, Rule, SteeringKey};
use std::net::IpAddr;

/// The match keys of a rule; `None` matches anything.
#[derive(Clone, Copy, Debug, Default)]
pub struct MatchKeys {
    pub qpn: Option<u32>,
    pub src_ip: Option<IpAddr>,
    pub dst_ip: Option<IpAddr>,
    pub src_port: Option<u16>,
    pub dst_port: Option<u16>,
}

impl MatchKeys {
    /// The rule's value and mask; an IPv4 address is compared in its IPv4-mapped form, as the
    /// NIC keeps it. A QPN wider than the BTH's 24 bits is refused.
    fn value_and_mask(&self) -> Result<(SteeringKey, SteeringKey), String> {
        let (mut value, mut mask) = (SteeringKey::default(), SteeringKey::default());
        if let Some(q) = self.qpn {
            if q > QPN_MAX {
                return Err(format!(
                    "key \"qpn\": {q:#x} is out of range (0..=0xFFFFFF)"
                ));
            }
            (value.qpn, mask.qpn) = (q, QPN_MAX);
        }
        let ip = |a: IpAddr| match a {
            IpAddr::V4(v) => v4_mapped(v.octets()),
            IpAddr::V6(v) => v.octets(),
        };
        if let Some(a) = self.src_ip {
            (value.src, mask.src) = (ip(a), [0xFF; 16]);
        }
        if let Some(a) = self.dst_ip {
            (value.dst, mask.dst) = (ip(a), [0xFF; 16]);
        }
        if let Some(p) = self.src_port {
            (value.src_port, mask.src_port) = (p, 0xFFFF);
        }
        if let Some(p) = self.dst_port {
            (value.dst_port, mask.dst_port) = (p, 0xFFFF);
        }
        Ok((value, mask))
    }

    /// An enabled rule on these keys, taking `action`.
    pub fn rule(&self, action: Action) -> Result<Rule, String> {
        let (value, mask) = self.value_and_mask()?;
        Ok(Rule {
            enabled: true,
            value,
            mask,
            action,
        })
    }
}
