//! Protection domains, and the address handles (RoCEv2 destinations) created in them.

use super::attr::QpInitAttr;
use super::buffer::DmaBuffer;
use super::context::Context;
use super::cq::CompletionQueue;
use super::mr::{AccessFlags, MemoryRegion};
use super::qp::QueuePair;
use super::srq::{SharedReceiveQueue, SrqInitAttr};
use super::{Error, Invalid};
use crate::device::Device;
use rocenic_model::qp::{self, IpPair};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{self, Nic, Vlan};
use std::marker::PhantomData;

/// A protection domain (`ibv_pd`): a QP's work requests reach only the memory regions of its
/// PD. Regions, QPs and address handles borrow it, so it outlives them.
pub struct ProtectionDomain<'c, D: Device> {
    ctx: &'c Context<D>,
    pdn: u32,
}

impl<'c, D: Device> ProtectionDomain<'c, D> {
    pub(super) fn new(ctx: &'c Context<D>, pdn: u32) -> Self {
        ProtectionDomain { ctx, pdn }
    }

    /// Its number, as the engine's QP and region tables hold it.
    pub fn pdn(&self) -> u32 {
        self.pdn
    }

    /// The context.
    pub fn context(&self) -> &'c Context<D> {
        self.ctx
    }

    /// Registers all of `buf` (`ibv_reg_mr`).
    pub fn reg_mr<'a>(
        &'a self,
        buf: &'a DmaBuffer<'c, D>,
        access: AccessFlags,
    ) -> Result<MemoryRegion<'a, D>, Error> {
        self.reg_mr_range(buf, 0, buf.len(), access)
    }

    /// Registers `len` bytes of `buf` from `offset`.
    pub fn reg_mr_range<'a>(
        &'a self,
        buf: &'a DmaBuffer<'c, D>,
        offset: u64,
        len: u64,
        access: AccessFlags,
    ) -> Result<MemoryRegion<'a, D>, Error> {
        MemoryRegion::register(self, buf, offset, len, access)
    }

    /// A QP whose completions, send and receive, go to `cq` (`ibv_create_qp` with one CQ as
    /// `send_cq` and `recv_cq`), in RESET.
    pub fn create_qp<'a>(
        &'a self,
        cq: &'a CompletionQueue<'c, D>,
        attr: &QpInitAttr,
    ) -> Result<QueuePair<'a, D>, Error> {
        QueuePair::create(self, cq, cq, attr)
    }

    /// A QP whose send completions go to `send_cq` and receive completions to `recv_cq`.
    pub fn create_qp_with_cqs<'a>(
        &'a self,
        send_cq: &'a CompletionQueue<'c, D>,
        recv_cq: &'a CompletionQueue<'c, D>,
        attr: &QpInitAttr,
    ) -> Result<QueuePair<'a, D>, Error> {
        QueuePair::create(self, send_cq, recv_cq, attr)
    }

    /// A shared receive queue in this PD (`ibv_create_srq`); QPs are created on it with
    /// [`SharedReceiveQueue::create_qp`].
    pub fn create_srq<'a>(
        &'a self,
        attr: &SrqInitAttr,
    ) -> Result<SharedReceiveQueue<'a, D>, Error> {
        SharedReceiveQueue::create(self, attr)
    }

    /// An address handle (`ibv_create_ah`): a UD work request's destination.
    pub fn create_ah(&self, attr: &AhAttr) -> Result<AddressHandle<'_>, Error> {
        attr.rc_vector(&self.ctx.nic())?;
        Ok(AddressHandle {
            attr: *attr,
            _pd: PhantomData,
        })
    }
}

/// A RoCEv2 GID: an IPv6 address, or an IPv4 one in its mapped form `::ffff:a.b.c.d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gid(pub [u8; 16]);

impl Gid {
    /// The GID of an IPv4 address.
    pub fn from_ipv4(ip: Ipv4Address) -> Gid {
        Gid(wqe::AddressVector::mapped(ip.0))
    }

    /// The GID of an IPv6 address.
    pub fn from_ipv6(ip: Ipv6Address) -> Gid {
        Gid(ip.0)
    }
}

/// Where packets go (`ibv_ah_attr` for RoCEv2, its MAC resolved): the peer's GID and MAC, and
/// how to tag and mark the packets. The source is the NIC's address of the GID's family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AhAttr {
    /// The destination GID.
    pub dgid: Gid,
    /// The next hop's MAC.
    pub dmac: EthernetAddress,
    /// An 802.1Q VLAN ID (below 0xFFF); `None` sends untagged.
    pub vlan: Option<u16>,
    /// The service level: the VLAN tag's priority (0..=7).
    pub sl: u8,
    /// IPv4 TOS / IPv6 traffic class.
    pub traffic_class: u8,
    /// IPv4 TTL / IPv6 hop limit (not 0).
    pub hop_limit: u8,
    /// The IPv6 flow label (20 bits); 0 lets the entropy unit derive one.
    pub flow_label: u32,
}

impl AhAttr {
    /// To `dgid` through `dmac`: untagged, SL 0, traffic class 0, hop limit 64, no flow label.
    pub fn new(dgid: Gid, dmac: EthernetAddress) -> Self {
        AhAttr {
            dgid,
            dmac,
            vlan: None,
            sl: 0,
            traffic_class: 0,
            hop_limit: 64,
            flow_label: 0,
        }
    }

    /// The vector an RC QP's context holds: from the NIC's address of the GID's family; the
    /// model checks every field's range.
    pub(super) fn rc_vector(&self, nic: &Nic) -> Result<qp::AddressVector, Error> {
        let ip = match self.ud_vector(0, 0).ipv4() {
            Some(dst) => IpPair::V4 {
                src: nic.ipv4,
                dst: Ipv4Address(dst),
            },
            None => IpPair::V6 {
                src: nic.ipv6,
                dst: Ipv6Address(self.dgid.0),
            },
        };
        let av = qp::AddressVector {
            vlan: self.vlan,
            pcp: self.sl,
            traffic_class: self.traffic_class,
            hop_limit: self.hop_limit,
            flow_label: self.flow_label,
            ..qp::AddressVector::new(ip, nic.mac, self.dmac)
        };
        av.validate().map_err(Invalid::AddressVector)?;
        Ok(av)
    }

    /// The address-vector segment of a UD work request to `dqpn` with `qkey`.
    pub(super) fn ud_vector(&self, dqpn: u32, qkey: u32) -> wqe::AddressVector {
        wqe::AddressVector {
            dqpn,
            qkey,
            dgid: self.dgid.0,
            dmac: self.dmac.0,
            vlan: self.vlan.map(|vid| Vlan { vid, pcp: self.sl }),
            flow_label: self.flow_label,
            tclass: self.traffic_class,
            hop_limit: self.hop_limit,
        }
    }
}

/// An address handle (`ibv_ah`) of a protection domain: a checked [`AhAttr`].
#[derive(Clone, Copy, Debug)]
pub struct AddressHandle<'pd> {
    attr: AhAttr,
    _pd: PhantomData<&'pd ()>,
}

impl AddressHandle<'_> {
    /// Its attributes.
    pub fn attr(&self) -> &AhAttr {
        &self.attr
    }
}
