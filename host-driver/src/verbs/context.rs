//! The device context: opening a [`Device`], `query_device`, and the driver's tables every
//! other object reaches through it.

use super::buffer::{DmaBuffer, Heap};
use super::cq::{CompletionQueue, CqEntry, HwRing};
use super::pd::ProtectionDomain;
use super::qp::QpEntry;
use super::recv::RxSide;
use super::{Error, Exhausted, Feature, Invalid};
use crate::device::{Block, BlockBus, Device, DeviceInfo};
use rocenic_firmware::{RssPipeline, RxPath, WqeEngine};
use rocenic_model::entropy::Profile;
use rocenic_model::qp::MAX_MSG_SIZE;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{self, Nic, Ring, CQE_BYTES, MAX_WQE_BYTES};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// How a context sets the device up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenAttr {
    /// The NIC's addresses: the source of UD packets, and of RC ones (a GID of either family).
    pub nic: Nic,
    /// The entropy profile (flow label and UDP source port rules).
    pub profile: Profile,
    /// log2 of the entries of the engine's completion ring, which every completion queue's
    /// completions pass through (0..=16).
    pub cq_log2: u32,
    /// Where the driver starts placing rings and buffers in the device's host memory.
    pub memory_base: u64,
}

impl Default for OpenAttr {
    fn default() -> Self {
        OpenAttr {
            nic: Nic {
                mac: EthernetAddress([0x02, 0, 0, 0, 0, 0x01]),
                ipv4: Ipv4Address::new(192, 168, 1, 1),
                ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            },
            profile: Profile::Linux,
            cq_log2: 10,
            memory_base: 0x1_0000_0000,
        }
    }
}

/// TSO capabilities (`ibv_tso_caps`): TSO work requests on UD QPs (IPoIB over RoCEv2), and on
/// raw packet QPs where `raw_packet` says so (`supported_qpts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TsoCaps {
    /// The largest payload of one TSO work request.
    pub max_tso: u32,
    /// The longest header template.
    pub max_header: u32,
    /// The largest MSS.
    pub max_mss: u32,
    /// Raw packet QPs take TSO work requests too (the model; the RTL segmenter serves UD QPs
    /// only).
    pub raw_packet: bool,
}

/// RSS capabilities (`ibv_rss_caps`), for a device with a receive path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RssCaps {
    /// Entries of the largest receive work queue indirection table.
    pub max_rwq_indirection_table_size: u32,
    /// Indirection tables (RSS contexts).
    pub max_rwq_indirection_tables: u32,
    /// The fields a hash may cover.
    pub rx_hash_fields_mask: rocenic_model::rss::HashFields,
}

/// What the device can do (`ibv_device_attr` and its extensions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceAttr {
    /// The backend's name.
    pub name: String,
    /// QPs the engine holds at once (those in RTS or ERR after RTS; the driver counts every QP).
    pub max_qp: u32,
    /// Work requests a send queue may hold.
    pub max_qp_wr: u32,
    /// Scatter/gather entries of a send work request.
    pub max_sge: u32,
    /// Scatter entries of a receive work request (0 without a receive path).
    pub max_recv_sge: u32,
    /// Work queues (0 without a receive path): every QP's receive queue is one.
    pub max_wq: u32,
    /// Inline bytes of a send work request, whatever its opcode and QP type.
    pub max_inline_data: u32,
    /// Completion queues.
    pub max_cq: u32,
    /// Entries of a completion queue.
    pub max_cqe: u32,
    /// Memory regions registered at once.
    pub max_mr: u32,
    /// The largest memory region.
    pub max_mr_size: u64,
    /// The largest message.
    pub max_msg_sz: u32,
    /// Protection domains.
    pub max_pd: u32,
    /// TSO work requests, `None` when the engine refuses them.
    pub tso: Option<TsoCaps>,
    /// Raw-packet QPs (`IBV_QPT_RAW_PACKET`).
    pub raw_packet: bool,
    /// RDMA READ (the device runs the reliable transport).
    pub rdma_read: bool,
    /// RSS, `None` without a receive path.
    pub rss: Option<RssCaps>,
    /// Receive queues and `post_recv` work.
    pub receive: bool,
    /// The entropy profile in force.
    pub profile: Profile,
    /// Entries of the engine's completion ring.
    pub completion_ring: u32,
}

/// Alignment of rings and buffers in host memory: a page, above every format's own.
pub(super) const ALIGN: u64 = 4096;

/// The driver's state of one device, shared by every object of its context.
pub(super) struct Inner<D: Device> {
    pub(super) device: Rc<RefCell<D>>,
    pub(super) info: DeviceInfo,
    pub(super) fw: WqeEngine<BlockBus<D>>,
    pub(super) nic: Nic,
    pub(super) heap: Heap,
    pub(super) hw_cq: HwRing,
    pub(super) cqs: HashMap<u32, CqEntry>,
    pub(super) qps: HashMap<u32, QpEntry>,
    /// The receive path, on a device that has one.
    pub(super) rx: Option<RxSide<D>>,
    pub(super) next_cq: u32,
    pub(super) next_pd: u32,
    pub(super) next_qpn: u32,
    /// The key byte each region slot hands out next, so that a stale lkey of a region
    /// deregistered from a slot does not name the region registered there after it.
    pub(super) mr_keys: Vec<u8>,
}

impl<D: Device> Inner<D> {
    /// Host memory: `len` zeroed bytes, page aligned.
    pub(super) fn alloc(&mut self, len: u64) -> Result<u64, Error> {
        let addr = self.heap.take(len).ok_or(Exhausted::HostMemory)?;
        let size = usize::try_from(len).map_err(|_| Exhausted::HostMemory)?;
        self.device
            .borrow_mut()
            .memory()
            .add(addr, size, wqe::Fill::Zero)
            .map_err(|_| Exhausted::HostMemory)?;
        Ok(addr)
    }

    /// Gives host memory back: its addresses fault from now on.
    pub(super) fn free(&mut self, addr: u64) {
        self.device.borrow_mut().memory().remove(addr);
    }
}

/// An open device (`ibv_context`): every other object borrows it.
pub struct Context<D: Device> {
    pub(super) inner: RefCell<Inner<D>>,
}

impl<D: Device> Context<D> {
    /// Opens `device`: checks its WQE engine, sets the NIC's addresses and profile, places the
    /// engine's completion ring in host memory and enables the engine; on a device with a
    /// receive path, opens it (and its RSS pipeline) and enables it.
    pub fn open(device: D, attr: &OpenAttr) -> Result<Self, Error> {
        let info = device.info();
        if !info.has(Block::Wqe) {
            return Err(Error::Unsupported(Feature::Send));
        }
        let ring = Ring::new(attr.cq_log2).ok_or(Invalid::Size(
            "completion ring log2",
            attr.cq_log2.into(),
            Ring::MAX_LOG2.into(),
        ))?;
        let device = Rc::new(RefCell::new(device));
        let mut fw = WqeEngine::open(BlockBus::new(device.clone(), Block::Wqe))?;
        // Raw-packet QPs and TSO are the engine's to say (CAPS.RAW, CAPS.TSO), whatever the
        // device was built as.
        let mut info = info;
        info.raw = fw.caps().raw;
        info.tso = fw.caps().tso.then(|| info.tso.unwrap_or_default());
        if fw.is_enabled() {
            fw.disable()?;
        }
        fw.configure(&attr.nic, attr.profile)?;
        // A transport in registers is the firmware's to set; the model's NIC runs its own.
        let transport = info.reliable.filter(|_| fw.caps().reliable);
        if transport.is_some() {
            fw.set_reliable(transport, info.rc_tick)?;
        }
        let mr_slots = fw.mr_slots().len();
        let rx = if info.has(Block::Rx) {
            let mut fw = RxPath::open(BlockBus::new(device.clone(), Block::Rx))?;
            if transport.is_some() {
                fw.set_responder(transport)?;
                fw.set_requester(true)?;
            }
            fw.enable()?;
            let rss = if info.has(Block::Rss) {
                Some(RssPipeline::open(BlockBus::new(
                    device.clone(),
                    Block::Rss,
                ))?)
            } else {
                None
            };
            let contexts = rss.as_ref().map_or(0, |r| r.contexts());
            let rules = rss.as_ref().map_or(0, |r| r.caps().rules as usize);
            Some(RxSide {
                fw,
                rss,
                wqs: Default::default(),
                contexts: vec![false; contexts],
                rules: vec![false; rules],
                raw_flows: Default::default(),
                next_flow: 0,
            })
        } else {
            None
        };
        let mut inner = Inner {
            device,
            info,
            fw,
            nic: attr.nic,
            heap: Heap::new(attr.memory_base),
            hw_cq: HwRing::new(0, ring),
            cqs: HashMap::new(),
            qps: HashMap::new(),
            rx,
            next_cq: 1,
            next_pd: 1,
            next_qpn: 0x100,
            mr_keys: vec![0; mr_slots],
        };
        let base = inner.alloc(u64::from(ring.entries()) * CQE_BYTES as u64)?;
        inner.fw.set_completion_ring(base, attr.cq_log2)?;
        inner.hw_cq = HwRing::new(base, ring);
        inner.fw.enable()?;
        Ok(Context {
            inner: RefCell::new(inner),
        })
    }

    /// Turns the receive side's RC responder on with `reliable`'s `ack_every` and
    /// `rnr_timer`, or off with `None` (docs/rc-responder.md, "ACK frames"): every RC request received
    /// is then classified by PSN and answered with an ACK or NAK frame, the way a requester
    /// such as Linux rxe needs. The send side is unchanged: its RC requests complete when they
    /// leave. Set it before creating RC QPs. A device with the whole transport
    /// ([`DeviceInfo::reliable`]) has it already and ignores this.
    pub fn set_responder(
        &self,
        reliable: Option<rocenic_model::rc::Reliable>,
    ) -> Result<(), Error> {
        let mut inner = self.inner.borrow_mut();
        if inner.info.reliable.is_some() {
            return Ok(());
        }
        let rx = inner
            .rx
            .as_mut()
            .ok_or(Error::Unsupported(Feature::Receive))?;
        rx.fw.set_responder(reliable)?;
        Ok(())
    }

    /// What the device can do (`ibv_query_device`).
    pub fn query_device(&self) -> DeviceAttr {
        let inner = self.inner.borrow();
        let caps = inner.fw.caps();
        let tso = inner.info.tso.map(|l| TsoCaps {
            max_tso: l.max_tso as u32,
            max_header: l.max_header as u32,
            max_mss: l.max_mss as u32,
            // The segmenter takes a raw QP's Ethernet templates as it takes IPoIB ones.
            raw_packet: inner.info.raw,
        });
        let rx = inner.rx.as_ref();
        let rx_caps = rx.map(|r| r.fw.caps());
        let rss = rx.and_then(|r| r.rss.as_ref()).map(|p| RssCaps {
            max_rwq_indirection_table_size: 1 << p.caps().table_log2.min(16),
            // Context 0 is the pipeline's default for frames no rule matches.
            max_rwq_indirection_tables: p.contexts().saturating_sub(1) as u32,
            rx_hash_fields_mask: rocenic_model::rss::HashFields(rocenic_firmware::rss::HASH_FIELDS),
        });
        DeviceAttr {
            name: inner.info.name.clone(),
            max_qp: inner.fw.qp_slots() as u32,
            max_qp_wr: 1 << Ring::MAX_LOG2,
            max_sge: caps.max_sge,
            max_recv_sge: rx_caps.map_or(0, |c| c.max_sge.min(rocenic_model::rx::MAX_SGE as u32)),
            max_wq: rx_caps.map_or(0, |c| c.wqs),
            max_inline_data: max_inline() as u32,
            max_cq: u32::MAX,
            max_cqe: 1 << Ring::MAX_LOG2,
            max_mr: caps.mrs,
            max_mr_size: u64::MAX,
            max_msg_sz: MAX_MSG_SIZE,
            max_pd: u32::MAX,
            tso,
            raw_packet: inner.info.raw,
            rdma_read: inner.info.rdma_read,
            rss,
            receive: rx.is_some(),
            profile: inner.fw.profile(),
            completion_ring: inner.hw_cq.ring.entries(),
        }
    }

    /// A protection domain (`ibv_alloc_pd`).
    pub fn alloc_pd(&self) -> Result<ProtectionDomain<'_, D>, Error> {
        let mut inner = self.inner.borrow_mut();
        let pdn = inner.next_pd;
        inner.next_pd = pdn.checked_add(1).ok_or(Invalid::Size(
            "protection domains",
            u64::from(u32::MAX),
            u64::from(u32::MAX - 1),
        ))?;
        Ok(ProtectionDomain::new(self, pdn))
    }

    /// `len` bytes of host memory the device can DMA, zeroed (a buffer to register).
    pub fn alloc_buffer(&self, len: u64) -> Result<DmaBuffer<'_, D>, Error> {
        if len == 0 {
            return Err(Invalid::Size("buffer length", 0, u64::MAX).into());
        }
        let addr = self.inner.borrow_mut().alloc(len)?;
        Ok(DmaBuffer::new(self, addr, len))
    }

    /// A completion queue of `cqe` entries (`ibv_create_cq`).
    pub fn create_cq(&self, cqe: u32) -> Result<CompletionQueue<'_, D>, Error> {
        let max = 1u32 << Ring::MAX_LOG2;
        if cqe == 0 || cqe > max {
            return Err(Invalid::Size("completion queue entries", cqe.into(), max.into()).into());
        }
        let mut inner = self.inner.borrow_mut();
        let id = inner.next_cq;
        inner.next_cq += 1;
        inner.cqs.insert(id, CqEntry::new(cqe as usize));
        Ok(CompletionQueue::new(self, id))
    }

    /// Lets the device run for `cycles` clock cycles (a real NIC runs by itself; a simulated
    /// one runs when its driver lets it, and during register accesses).
    pub fn run(&self, cycles: u64) -> Result<(), Error> {
        let inner = self.inner.borrow();
        let mut dev = inner.device.borrow_mut();
        Ok(dev.run(cycles)?)
    }

    /// The device's clock cycles so far.
    pub fn cycle(&self) -> u64 {
        self.inner.borrow().device.borrow().cycle()
    }

    /// The backend itself, for what only it offers (a co-simulation's frame output, say). Do
    /// not call the driver from `f`.
    pub fn with_device<R>(&self, f: impl FnOnce(&mut D) -> R) -> R {
        let inner = self.inner.borrow();
        let mut dev = inner.device.borrow_mut();
        f(&mut dev)
    }

    /// The NIC's addresses.
    pub fn nic(&self) -> Nic {
        self.inner.borrow().nic
    }

    /// What the backend says it carries.
    pub fn device_info(&self) -> DeviceInfo {
        self.inner.borrow().info.clone()
    }
}

/// Inline bytes every opcode of every QP type can carry in the largest WQE: the control
/// segment, a UD address vector or an RDMA WRITE's remote address, then the data (the
/// layout of docs/wqe.md, as `model::wqe` encodes it).
fn max_inline() -> usize {
    MAX_WQE_BYTES - wqe::CONTROL_BYTES - wqe::AV_BYTES.max(wqe::RADDR_BYTES)
}

/// Lets several devices run side by side for `cycles` cycles, one cycle each in turn: how two
/// simulated NICs on a wire share time (each device runs only when its driver lets it).
pub fn run_together<D: Device>(ctxs: &[&Context<D>], cycles: u64) -> Result<(), Error> {
    for _ in 0..cycles {
        for c in ctxs {
            c.run(1)?;
        }
    }
    Ok(())
}
