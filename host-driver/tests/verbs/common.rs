//! What the tests share: a context over the co-simulated WQE engine, and the model's send
//! engine given the same regions, QPs and WQEs (the driver's own bytes in host memory), whose
//! frames and completions the engine's must equal.

use rand::Rng;
use rocenic_host_driver::verbs::{
    Completion, Context, MemoryRegion, OpenAttr, QueuePair, WcOpcode,
};
use rocenic_model::rss::classify;
use rocenic_model::wire::LinkType;
use rocenic_model::wqe::{CompletionRing, Cqe, Fill, HostMemory, Queues, Ring, SendEngine, Step};
use rocenic_sim::stream::TestRng;
use rocenic_sim::wqe::device::WqeDevice;
use rocenic_sim::wqe::engine::Load;
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use std::collections::BTreeMap;

/// The co-simulated engine as the driver's device.
pub type Dev = WqeDevice;

/// Cycles a test waits for completions or frames before it fails.
pub const LIMIT: u64 = 400_000;

/// The seed of `test` (printed; `ROCENIC_SEED` replays it) and a generator from it.
pub fn seeded(test: &str) -> (u64, TestRng) {
    let s = rocenic_sim::stream::seed(test);
    (s, rocenic_sim::stream::rng(s))
}

/// A host and register bus that take their time, responses out of order, and back-pressure
/// on the frame output.
pub fn adversarial() -> Load {
    Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.7,
        axil_delay: 0.3,
    }
}

/// A context over a fresh engine.
pub fn open(load: &Load, seed: u64, attr: &OpenAttr) -> Context<Dev> {
    Context::open(WqeDevice::new(load, seed), attr).expect("the engine opens")
}

/// The BTH destination QPN of a frame: the tests give every QP its own destination, so it
/// names the QP that sent the frame.
pub fn dest_qpn(frame: &[u8]) -> u32 {
    classify(LinkType::Ethernet, frame)
        .tuple
        .bth_dest_qpn
        .expect("a RoCEv2 frame")
}

/// Frames the engine sent since the last call.
pub fn frames(ctx: &Context<Dev>) -> Vec<Vec<u8>> {
    ctx.with_device(|d| d.take_frames())
}

/// Lets the engine run until it has sent `n` frames not yet taken (at most [`LIMIT`]
/// cycles); returns them.
pub fn wait_frames(ctx: &Context<Dev>, n: usize) -> Vec<Vec<u8>> {
    ctx.with_device(|d| {
        use rocenic_host_driver::Device;
        d.run_until(LIMIT, &mut |d: &mut WqeDevice| {
            d.bench().frames().len() >= n
        })
        .unwrap_or_else(|e| panic!("{n} frames: {e} ({} came)", d.bench().frames().len()));
        d.take_frames()
    })
}

/// The model's send engine with the driver's regions and QPs.
pub struct Mirror {
    engine: SendEngine,
    queues: Queues,
    /// Its own completion ring, placed below every address the driver uses.
    cq_base: u64,
    cq: Ring,
    /// Every frame and completion so far, by QP.
    pub frames: BTreeMap<u32, Vec<Vec<u8>>>,
    pub cqes: BTreeMap<u32, Vec<Cqe>>,
}

impl Mirror {
    /// A model of the context's NIC and profile.
    pub fn new(ctx: &Context<Dev>) -> Mirror {
        let cq = Ring::new(Ring::MAX_LOG2).unwrap();
        Mirror {
            engine: SendEngine::new(ctx.nic(), ctx.query_device().profile),
            queues: Queues::new(CompletionRing::new(cq, 0).unwrap(), 0x1000),
            cq_base: 0x1000,
            cq,
            frames: BTreeMap::new(),
            cqes: BTreeMap::new(),
        }
    }

    /// The region, as the engine's table holds it.
    pub fn mr(&mut self, mr: &MemoryRegion<'_, Dev>) {
        self.engine.mrs.register(mr.region()).unwrap();
    }

    /// The QP, as the engine was given it (it must be in RTS).
    pub fn qp(&mut self, qp: &QueuePair<'_, Dev>) {
        let (config, ring) = qp.engine_context().expect("the engine holds the QP");
        self.engine.qps.create(qp.qp_num(), config).unwrap();
        self.engine.qps.bring_up(qp.qp_num()).unwrap();
        self.queues.attach(qp.qp_num(), ring, 0).unwrap();
    }

    /// Runs the WQEs up to each QP's `producer` from a copy of the device's host memory as it
    /// is now; returns the completions written, by QP.
    pub fn run(&mut self, ctx: &Context<Dev>, doorbells: &[(u32, u32)]) -> BTreeMap<u32, usize> {
        let mut mem: HostMemory = ctx.with_device(|d| d.bench().memory().clone());
        mem.add(self.cq_base, 32 << self.cq.log2(), Fill::Zero)
            .unwrap();
        for &(qpn, producer) in doorbells {
            self.queues.doorbell(qpn, producer).unwrap();
        }
        let mut new = BTreeMap::new();
        loop {
            let mut out = Vec::new();
            let step = self
                .queues
                .step(&mut self.engine, &mut mem, &mut |f: &[u8]| {
                    out.push(f.to_vec())
                })
                .unwrap();
            for f in out {
                self.frames.entry(dest_qpn(&f)).or_default().push(f);
            }
            match step {
                Step::Idle => break,
                Step::CqFull => {
                    let p = self.queues.cq().producer();
                    self.queues.cq_doorbell(p).unwrap();
                }
                Step::Ran { qpn, cqe } => {
                    if let Some((_, c)) = cqe {
                        self.cqes.entry(qpn).or_default().push(c);
                        *new.entry(qpn).or_default() += 1;
                    }
                }
            }
        }
        new
    }
}

/// Checks a driver completion against the model's.
pub fn same_completion(got: &Completion, want: &Cqe, what: &str) {
    assert_eq!(got.wr_id(), want.wr_id, "{what}: wr_id");
    assert_eq!(got.qp_num(), want.qpn, "{what}: QP");
    assert_eq!(got.status(), want.status, "{what}: status");
    assert_eq!(
        got.opcode(),
        want.opcode.map(WcOpcode::from),
        "{what}: opcode"
    );
    assert_eq!(got.byte_len(), want.byte_len, "{what}: byte_len");
    assert_eq!(got.wqe_index(), want.wqe_index, "{what}: wqe_index");
}

/// Random bytes.
pub fn bytes(r: &mut TestRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| r.gen()).collect()
}
