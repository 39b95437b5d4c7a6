//! What the receive tests share: a backend (a way to get two NICs on a wire and see the
//! wire), two contexts over them, waiting for completions while both NICs run, QP set-ups.
//!
//! Every test is a function generic over [`Backend`], so the full core's co-simulation can
//! run them unchanged once it has a backend with a receive path; `main.rs` runs them on the
//! model backend.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::model_device::{Link, ModelDevice, Side};
use rocenic_host_driver::verbs::{
    run_together, AhAttr, Completion, CompletionQueue, Context, Gid, InitAttr, Nic, OpenAttr,
    PathMtu, ProtectionDomain, Psn, QpInitAttr, QpType, QueuePair, RtrAttr, RtsAttr,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};

/// Two NICs on a wire.
pub trait Backend {
    /// The device type.
    type Dev: Device;
    /// Two fresh NICs, `a` and `b`, on one wire.
    fn pair(&mut self) -> (Self::Dev, Self::Dev);
    /// The frames `a` sent so far, in wire order.
    fn sent_by_a(&self) -> Vec<Vec<u8>>;
}

/// The model backend.
#[derive(Default)]
pub struct Model {
    link: Option<Link>,
}

impl Backend for Model {
    type Dev = ModelDevice;

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
}

/// Turns a test waits for completions before it fails.
pub const LIMIT: u64 = 200_000;

/// A seeded generator (the seed printed; `ROCENIC_SEED` replays).
pub fn seeded(test: &str) -> (u64, SmallRng) {
    let s = rocenic_sim::stream::seed(test);
    (s, SmallRng::seed_from_u64(s))
}

/// NIC `i`'s addresses: MAC 02:00:00:00:00:0i, 10.0.0.i, fd00::i.
pub fn nic(i: u8) -> Nic {
    let mut v6 = [0u8; 16];
    v6[0] = 0xfd;
    v6[15] = i;
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, i]),
        ipv4: Ipv4Address::new(10, 0, 0, i),
        ipv6: Ipv6Address(v6),
    }
}

/// Contexts over a fresh pair: `a` is NIC 1, `b` NIC 2.
pub fn open<B: Backend>(backend: &mut B) -> (Context<B::Dev>, Context<B::Dev>) {
    let (a, b) = backend.pair();
    let attr = |i| OpenAttr {
        nic: nic(i),
        ..OpenAttr::default()
    };
    (
        Context::open(a, &attr(1)).expect("a opens"),
        Context::open(b, &attr(2)).expect("b opens"),
    )
}

/// Where NIC `i` is, over IPv4 or IPv6.
pub fn ah_to(i: u8, v6: bool) -> AhAttr {
    let n = nic(i);
    let gid = if v6 {
        Gid::from_ipv6(n.ipv6)
    } else {
        Gid::from_ipv4(n.ipv4)
    };
    AhAttr::new(gid, n.mac)
}

/// Polls `cq` until `n` completions came, both NICs running in between; panics after
/// [`LIMIT`] turns.
pub fn wait<D: Device>(
    cq: &CompletionQueue<'_, D>,
    n: usize,
    nics: &[&Context<D>],
) -> Vec<Completion> {
    let mut got = Vec::new();
    let mut turns = 0;
    while got.len() < n {
        got.extend(cq.poll(n - got.len()).expect("poll"));
        if got.len() >= n {
            break;
        }
        assert!(
            turns < LIMIT,
            "{} of {n} completions in {LIMIT} turns",
            got.len()
        );
        run_together(nics, 8).expect("the devices run");
        turns += 8;
    }
    got
}

/// Lets both NICs run `turns` turns and checks `cq` stays empty.
pub fn quiet<D: Device>(cq: &CompletionQueue<'_, D>, turns: u64, nics: &[&Context<D>]) {
    run_together(nics, turns).expect("the devices run");
    let c = cq.poll(16).expect("poll");
    assert!(c.is_empty(), "unexpected completions {c:?}");
}

/// A UD QP with `recv` receives of `sge` entries, in RTS with Q_Key `qkey`.
pub fn ud_qp<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
    sge: u32,
    qkey: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: sge,
        max_inline_data: 256,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut qp = pd.create_qp(cq, &attr).expect("a UD QP");
    qp.bring_up(
        InitAttr::ud(qkey),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .expect("UD to RTS");
    qp
}
