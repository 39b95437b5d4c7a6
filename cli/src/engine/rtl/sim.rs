//! `rocenic sim --engine rtl`: two co-simulated full cores (`rtl/top/nic_core.sv`, docs/top.md)
//! joined by a `sim::link` wire (`CoreDevice::pair`), each programmed through its one AXI4-Lite
//! port by the firmware (`WqeEngine`, `RxPath`, `RssPipeline` over the device's blocks), over
//! the host memory the job laid out.
//!
//! Programming follows the model engine's order (regions, QPs to RTS, work queues with every
//! buffer posted, the QPs' receive sides, RSS contexts, rules, every send doorbell), and both
//! engines are enabled only then, so that each serves its work requests in the model's order.
//! The cores then run side by side, one cycle each in turn, in turns of [`TURN`] cycles. After
//! each turn the frames each core sent whole go to `host.frame` (a's, then b's: in order each
//! way), and when the host's turn comes it reads the completion rings from each core's host
//! memory, its doorbells written to the registers, and the engines' `WQES` counters feed
//! `host.ran`. The run ends when both engines have served every request and are idle, both
//! receive paths have finished every frame they took, the wire is empty and nothing changed
//! for [`QUIET`] turns; the cycles reported are the cores' (which run together) from the
//! enables to the end of the last turn that changed something (the last completion read). The ideal host and MAC (`Load::ideal`): the seed paces the
//! host's polls only.

use super::Rtl;
use crate::send::scenario::ScenarioError;
use crate::sim::scenario::{Scenario, SIDES};
use crate::sim::{self, Doorbell, Host, Report, SideJob};
use crate::Failure;
use rocenic_firmware::rss::ContextConfig;
use rocenic_firmware::{EntropySource, RssPipeline, RxPath, WqeEngine};
use rocenic_host_driver::device::{Block, BlockBus, Device};
use rocenic_host_driver::model_device::Side;
use rocenic_model::rx::WqState;
use rocenic_model::wqe::HostMemory;
use rocenic_sim::link::Config as LinkConfig;
use rocenic_sim::top::core::Load;
use rocenic_sim::top::device::{CoreDevice, CoreLink};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// Cycles each core runs between two looks at the wire and the host's chances to poll.
const TURN: u64 = 32;
/// Turns without any change before a run whose every request was served counts as settled:
/// longer than a frame takes through the wire, the RSS pipeline and the receive path.
const QUIET: u32 = 16;
/// Cycles the run may take per turn of the job's bound (which the model counts in turns of a
/// work request or a frame each, and a 4 KiB frame is 512 cycles of the 64-bit streams).
const CYCLES_PER_TURN: u64 = 1024;

type Bus = BlockBus<CoreDevice>;

/// One core and its firmware.
struct Core {
    dev: Rc<RefCell<CoreDevice>>,
    wqe: WqeEngine<Bus>,
    rx: RxPath<Bus>,
    /// Work requests posted, and those served as `WQES` last read.
    requests: u32,
    served: u32,
}

/// A firmware call that failed: the scenario was checked against the model's rules, which the
/// firmware shares, so this is a difference between the core and the model (or a bug).
fn fw<T>(what: &str, r: Result<T, rocenic_firmware::Error>) -> Result<T, Failure> {
    r.map_err(|e| Failure(format!("--engine rtl: {what}: {e}")))
}

/// Programs `dev` as `side` says over `memory`; every doorbell rung, the engine not enabled.
fn program(
    dev: Rc<RefCell<CoreDevice>>,
    side: &SideJob,
    memory: HostMemory,
) -> Result<Core, Failure> {
    *dev.borrow_mut().memory() = memory;
    let bus = |b| BlockBus::new(dev.clone(), b);
    let job = &side.send;
    let mut wqe = fw("open the WQE engine", WqeEngine::open(bus(Block::Wqe)))?;
    let mut rx = fw("open the receive path", RxPath::open(bus(Block::Rx)))?;
    let mut rss: RssPipeline<Bus> =
        fw("open the RSS pipeline", RssPipeline::open(bus(Block::Rss)))?;
    fw("enable the receive path", rx.enable())?;
    fw("configure", wqe.configure(&job.nic, job.profile))?;
    fw(
        "completion ring",
        wqe.set_completion_ring(job.cq_base, job.cq.log2()),
    )?;
    for mr in &job.mrs {
        fw("register a region", wqe.register_mr(mr))?;
    }
    for q in &job.queues {
        let what = format!("QP 0x{:x}", q.qpn);
        fw(
            &what,
            wqe.create_qp(q.qpn, &q.config, &q.ring, EntropySource::Qpn),
        )?;
        fw(&what, wqe.bring_up(q.qpn))?;
    }
    for q in &side.wqs {
        let what = format!("work queue {}", q.wq);
        fw(&what, rx.create_wq(q.wq, &q.config))?;
        fw(&what, rx.modify_wq(q.wq, WqState::Ready))?;
        fw(&what, rx.post_receives(q.wq, q.buffers))?;
    }
    for r in &side.receivers {
        let what = format!("QP 0x{:x}'s receive side", r.qpn);
        let q = job
            .queues
            .iter()
            .find(|q| q.qpn == r.qpn)
            .ok_or_else(|| Failure(format!("--engine rtl: {what}: no such QP")))?;
        fw(&what, rx.attach(r.qpn, &q.config, r.target, r.epsn))?;
    }
    for (i, c) in side.contexts.iter().enumerate() {
        let config = ContextConfig {
            function: c.function,
            fields: c.fields,
            key: &c.key,
        };
        fw("RSS context", rss.set_context(i, &config, &c.table))?;
    }
    for (i, r) in side.rules.iter().enumerate() {
        fw("steering rule", rss.set_rule(i, r))?;
    }
    for q in job.queues.iter().filter(|q| q.producer > 0) {
        fw("send doorbell", wqe.ring_doorbell(q.qpn, q.producer))?;
    }
    let requests = job.queues.iter().map(|q| q.producer).sum();
    Ok(Core {
        dev,
        wqe,
        rx,
        requests,
        served: 0,
    })
}

impl Core {
    fn cycle(&self) -> u64 {
        self.dev.borrow().cycle()
    }

    fn run(&self, cycles: u64) -> Result<(), Failure> {
        self.dev
            .borrow_mut()
            .run(cycles)
            .map_err(|e| Failure(format!("--engine rtl: {e}")))
    }

    /// Reads `WQES` and tells the host of every request served since the last read.
    fn served(&mut self, s: usize, host: &mut Host) -> Result<(), Failure> {
        let now = fw("read WQES", self.wqe.wqes())?;
        for _ in 0..now.wrapping_sub(self.served) {
            host.ran(s);
        }
        self.served = now;
        Ok(())
    }

    /// The host's poll of this core: returns whether it rang a doorbell.
    fn poll(&mut self, s: usize, host: &mut Host) -> Result<bool, Failure> {
        self.served(s, host)?;
        let bells = host.poll(s, self.dev.borrow_mut().memory())?;
        for &bell in &bells {
            match bell {
                Doorbell::SendCq(c) => fw("send completions", self.wqe.release_completions(c))?,
                Doorbell::RecvCq(w, c) => {
                    fw("receive completions", self.rx.release_completions(w, c))?
                }
                Doorbell::Post(w, p) => fw("post receives", self.rx.post_receives(w, p))?,
            }
        }
        Ok(!bells.is_empty())
    }

    /// The WQE engine reports `STATUS.IDLE`, and the receive path has finished every frame
    /// taken. (The receive path's own `STATUS.IDLE` would say so too, docs/rx.md "Idle", but
    /// reading it costs a register access per look, which would move the cycle counts; the
    /// bench's counters cost none.)
    fn idle(&mut self) -> Result<bool, Failure> {
        let c = self.dev.borrow().counts();
        Ok(c.rx_done == c.rx_frames && fw("WQE engine status", self.wqe.status())?.idle)
    }
}

/// What changes while the cores work: frames sent, completions read, frames taken and
/// finished, WQEs flushed.
fn activity(cores: &[Core; 2], host: &Host) -> [u64; 5] {
    let c = cores.each_ref().map(|c| c.dev.borrow().counts());
    [
        c[0].tx_frames + c[1].tx_frames,
        host.rows.len() as u64,
        c[0].rx_frames + c[1].rx_frames,
        c[0].rx_done + c[1].rx_done,
        // The receive path steps its flush all the time; only a step that completes counts.
        c[0].flush_hits + c[1].flush_hits,
    ]
}

impl sim::Unit for Rtl {
    /// The cores run here as the default build, without the reliable transport (the build with
    /// it, `nic_core_rel`, runs under `tests/tests/rc_lossy.rs`; its engine's `WQES` counts
    /// packets, not requests, and it counts no resends yet): a scenario with a `[link]` runs on
    /// the model.
    fn accepts(&self, scenario: &Scenario) -> Result<(), ScenarioError> {
        match &scenario.link {
            None => Ok(()),
            Some(at) => Err(ScenarioError {
                line: at.line,
                place: Some(at.place),
                message: "--engine rtl runs the co-simulated cores without the reliable \
                          transport (docs/rc.md): a lossy link runs on --engine model"
                    .into(),
            }),
        }
    }

    fn run(
        &mut self,
        job: sim::Job,
        vcd: Option<&Path>,
        host: &mut Host,
    ) -> Result<Report, Failure> {
        // A wire of one cycle and an ideal host and MAC: the core's own pace.
        let (a, b, link) = CoreDevice::pair_traced(&Load::ideal(), LinkConfig::default(), 1, vcd)
            .map_err(|e| Failure(format!("cannot write the trace: {e}")))?;
        // `accepts` refused a job with a link.
        let sim::Job {
            sides,
            limit,
            link: _,
        } = job;
        let [mut sa, mut sb] = sides;
        let ma = std::mem::replace(&mut sa.send.memory, HostMemory::new());
        let mb = std::mem::replace(&mut sb.send.memory, HostMemory::new());
        let mut cores = [
            program(Rc::new(RefCell::new(a)), &sa, ma)?,
            program(Rc::new(RefCell::new(b)), &sb, mb)?,
        ];
        for c in &mut cores {
            fw("enable the WQE engine", c.wqe.enable())?;
        }
        level(&cores)?;
        let start = cores[0].cycle();
        let limit = limit.saturating_mul(CYCLES_PER_TURN);
        let mut sent = [0usize; 2];
        let mut last = activity(&cores, host);
        let mut still = 0u32;
        let mut busy_until = start;
        loop {
            for _ in 0..TURN {
                cores[0].run(1)?;
                cores[1].run(1)?;
            }
            tap(&link, &mut sent, host)?;
            let mut rang = false;
            let served = cores.iter().all(|c| c.served == c.requests);
            if host.poll_due() || (served && still >= QUIET) {
                for (s, c) in cores.iter_mut().enumerate() {
                    rang |= c.poll(s, host)?;
                }
            }
            level(&cores)?;
            let now = activity(&cores, host);
            if rang || now != last {
                still = 0;
                busy_until = cores[0].cycle();
            } else {
                still += 1;
            }
            last = now;
            let served = cores.iter().all(|c| c.served == c.requests);
            if served && still > QUIET && link.idle() && quiet(&cores) {
                let mut idle = true;
                for c in &mut cores {
                    idle &= c.idle()?;
                }
                if idle {
                    break;
                }
            }
            let run = cores[0].cycle() - start;
            if run > limit {
                return Err(Failure(format!(
                    "the run did not settle within {limit} cycles (the bound the scenario \
                     implies): {}; {}",
                    left(&cores[0], SIDES[0]),
                    left(&cores[1], SIDES[1])
                )));
            }
        }
        // The registers read last: the counters.
        let mut counts = [Default::default(); 2];
        for (s, c) in cores.iter_mut().enumerate() {
            counts[s] = fw("receive counters", c.rx.counts())?;
        }
        // The trace ends with the run, so that an FST that cannot be written is this run's error.
        cores[0]
            .dev
            .borrow_mut()
            .bench_mut()
            .close_trace()
            .map_err(|e| Failure(format!("cannot write the trace: {e}")))?;
        Ok(Report {
            counts,
            cycles: Some(busy_until - start),
            turns: (cores[0].cycle() - start).div_ceil(TURN),
            rc: None,
        })
    }
}

/// The frames each core sent whole since the last look, a's then b's, to the host.
fn tap(link: &CoreLink, sent: &mut [usize; 2], host: &mut Host) -> Result<(), Failure> {
    for (s, side) in [Side::A, Side::B].into_iter().enumerate() {
        for f in link.sent_since(side, sent[s]) {
            host.frame(s, &f)?;
            sent[s] += 1;
        }
    }
    Ok(())
}

/// Runs the core that is behind (a register access runs only its own core) up to the other's
/// cycle, so that the two clocks stay together.
fn level(cores: &[Core; 2]) -> Result<(), Failure> {
    let (a, b) = (cores[0].cycle(), cores[1].cycle());
    if a < b {
        cores[0].run(b - a)
    } else {
        cores[1].run(a - b)
    }
}

/// Neither bench has a register access, a DMA or a transmit frame under way.
fn quiet(cores: &[Core; 2]) -> bool {
    cores.iter().all(|c| c.dev.borrow().bench().quiet())
}

/// What core `name` still had to do when the run was stopped.
fn left(core: &Core, name: &str) -> String {
    let c = core.dev.borrow().counts();
    format!(
        "nic {name}: {} of {} work request(s) served, {} frame(s) sent, {} taken",
        core.served, core.requests, c.tx_frames, c.rx_frames
    )
}
