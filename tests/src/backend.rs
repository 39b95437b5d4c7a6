//! The backend a test runs on: two fresh NICs on one wire, and what crossed it.

use rocenic_host_driver::device::Device;
use rocenic_host_driver::model_device::{Link, ModelDevice, Side};
use rocenic_host_driver::verbs::Context;
use rocenic_model::link::Faults;
use rocenic_model::rc::Reliable;
use rocenic_sim::duts::NicCoreRel;
use rocenic_sim::link::Config as LinkConfig;
use rocenic_sim::top::core::Load;
use rocenic_sim::top::device::{CoreDevice, CoreLink};

/// Two NICs on a wire.
pub trait Backend {
    /// The device type.
    type Dev: Device;
    /// Its send engine segments UD QPs' TSO work requests (the model's and the full core's do;
    /// on a backend without, the driver refuses them, `Unsupported(Tso)`). Raw QPs' TSO is the
    /// model's only: `query_device().tso`'s `raw_packet` says which.
    const TSO: bool;
    /// Two fresh NICs, `a` and `b`, on one wire.
    fn pair(&mut self) -> (Self::Dev, Self::Dev);
    /// The frames `a` sent so far, in wire order.
    fn sent_by_a(&self) -> Vec<Vec<u8>>;
    /// Puts `frame` at `to`'s input ahead of the wire (a test reordering a's packets, say).
    fn inject(&self, to: &Context<Self::Dev>, frame: &[u8]);
}

/// The model backend: two `ModelDevice`s on a `Link`.
#[derive(Default)]
pub struct Model {
    link: Option<Link>,
}

impl Backend for Model {
    type Dev = ModelDevice;
    const TSO: bool = true;

    fn pair(&mut self) -> (ModelDevice, ModelDevice) {
        let (a, b, link) = Link::pair();
        self.link = Some(link);
        (a, b)
    }

    fn sent_by_a(&self) -> Vec<Vec<u8>> {
        let link = self.link.as_ref().expect("a pair was made");
        link.frames()
            .into_iter()
            .filter(|f| f.from == Side::A)
            .map(|f| f.data)
            .collect()
    }

    fn inject(&self, to: &Context<ModelDevice>, frame: &[u8]) {
        to.with_device(|d| d.inject(frame));
    }
}

/// The model backend with the reliable connection transport on both NICs (docs/rc.md): RC
/// requests complete when acknowledged, and RDMA READ runs. Its wire may lose, corrupt and
/// duplicate frames ([`ModelRc::lossy`]).
#[derive(Default)]
pub struct ModelRc {
    faults: Option<(Faults, u64)>,
    model: Model,
}

impl ModelRc {
    /// On a wire with `faults`, drawn from `seed`.
    pub fn lossy(faults: Faults, seed: u64) -> Self {
        ModelRc {
            faults: Some((faults, seed)),
            model: Model::default(),
        }
    }

    /// The wire, once a pair was made.
    pub fn link(&self) -> &Link {
        self.model.link.as_ref().expect("a pair was made")
    }
}

impl Backend for ModelRc {
    type Dev = ModelDevice;
    const TSO: bool = true;

    fn pair(&mut self) -> (ModelDevice, ModelDevice) {
        let (faults, seed) = self.faults.unwrap_or((Faults::NONE, 0));
        let (a, b, link) = Link::pair_with(faults, seed);
        self.model.link = Some(link);
        let rel = Reliable::default();
        (a.with_reliable(rel), b.with_reliable(rel))
    }

    fn sent_by_a(&self) -> Vec<Vec<u8>> {
        self.model.sent_by_a()
    }

    fn inject(&self, to: &Context<ModelDevice>, frame: &[u8]) {
        self.model.inject(to, frame);
    }
}

/// The co-simulated full core built with the reliable transport (`nic_core_rel`): as [`Core`],
/// and `Context::open` programs the transport ([`TRANSPORT`]); its wire may lose, corrupt and
/// duplicate frames ([`CoreRc::lossy`], which takes the test's seed, so that one seed replays
/// the whole run).
#[derive(Default)]
pub struct CoreRc {
    faults: Option<(Faults, u64)>,
    link: Option<CoreLink>,
}

/// The transport's settings on [`CoreRc`].
pub use rocenic_sim::top::device::TRANSPORT;

impl CoreRc {
    /// On a wire with `faults`; the wire, the hosts and the MACs seeded by `seed`.
    pub fn lossy(faults: Faults, seed: u64) -> Self {
        CoreRc {
            faults: Some((faults, seed)),
            link: None,
        }
    }

    /// The wire, once a pair was made.
    pub fn link(&self) -> &CoreLink {
        self.link.as_ref().expect("a pair was made")
    }
}

impl Backend for CoreRc {
    type Dev = CoreDevice<NicCoreRel>;
    const TSO: bool = true;

    fn pair(&mut self) -> (Self::Dev, Self::Dev) {
        let (f, seed) = self
            .faults
            .unwrap_or_else(|| (Faults::NONE, rocenic_sim::stream::seed("core rc backend")));
        let cfg = LinkConfig::with_faults(20, f);
        let (a, b, link) = CoreDevice::pair_reliable(&Load::random(), cfg, seed, TRANSPORT);
        self.link = Some(link);
        (a, b)
    }

    fn sent_by_a(&self) -> Vec<Vec<u8>> {
        self.link().sent(Side::A)
    }

    fn inject(&self, to: &Context<Self::Dev>, frame: &[u8]) {
        to.with_device(|d| d.inject(frame));
    }
}

/// The co-simulated full core: two `CoreDevice`s (`rtl/top/nic_core.sv`) on a `sim::link`
/// wire of 20 cycles, each with a host that answers late, out of order and with back-pressure,
/// random back-pressure on transmit and gaps on receive. Its seed is printed and replays from
/// `ROCENIC_SEED`, as the tests' own.
#[derive(Default)]
pub struct Core {
    link: Option<CoreLink>,
}

impl Backend for Core {
    type Dev = CoreDevice;
    const TSO: bool = true;

    fn pair(&mut self) -> (CoreDevice, CoreDevice) {
        let seed = rocenic_sim::stream::seed("core backend");
        let cfg = LinkConfig {
            delay: 20,
            ..LinkConfig::default()
        };
        let (a, b, link) = CoreDevice::pair(&Load::random(), cfg, seed);
        self.link = Some(link);
        (a, b)
    }

    fn sent_by_a(&self) -> Vec<Vec<u8>> {
        self.link.as_ref().expect("a pair was made").sent(Side::A)
    }

    fn inject(&self, to: &Context<CoreDevice>, frame: &[u8]) {
        to.with_device(|d| d.inject(frame));
    }
}
