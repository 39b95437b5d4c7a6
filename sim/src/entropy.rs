//! The entropy unit (`rtl/entropy/entropy_unit.sv`) driven with model requests, in either build:
//! products split at 18 bits (`EntropyUnit`, the default, ECP5) or at 16 (`EntropyUnit16`, the
//! iCEBreaker's).

use crate::duts::{EntropyUnit, EntropyUnitPorts};
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rand::Rng;
use rocenic_model::entropy::{Entropy, Profile, QpType, Request, MODE_CM, MODE_QP, MULTICAST_QPN};
use std::collections::VecDeque;
use std::fmt;

/// Cycles from a request's acceptance to its result, with an always-ready sink (the RTL's
/// `LATENCY`; the tests hold the RTL to it).
pub const LATENCY: u64 = 5;

/// The widest QPN the unit takes: QPNs are 24 bits on the wire.
pub const MAX_QPN: u32 = 0x00FF_FFFF;

/// Why a batch could not be run through the RTL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A request's QPN does not fit the 24 bits of the wire.
    QpnTooWide {
        /// The request's position in the batch.
        index: usize,
        /// The QPN.
        qpn: u32,
    },
    /// The unit stopped making progress.
    Hang(Hang),
    /// The unit broke the valid/ready protocol (the message says how).
    Protocol(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::QpnTooWide { index, qpn } => write!(
                f,
                "request {index}: QPN {qpn:#x} is wider than the 24 bits of the wire"
            ),
            Error::Hang(h) => h.fmt(f),
            Error::Protocol(m) => write!(f, "protocol violation: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// A request as the unit's input ports see it (`s_req_<field>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRequest {
    /// 0 QP, 1 CM.
    pub mode: u8,
    /// The profile's code.
    pub profile: u8,
    /// 0 RC, 1 UD.
    pub qp_type: u8,
    /// Local QPN.
    pub lqpn: u32,
    /// Remote QPN.
    pub rqpn: u32,
    /// QP: the address vector's flow label; CM: `sin6_flowinfo`.
    pub fl: u32,
    /// CM only.
    pub src_port: u16,
    /// CM only.
    pub dst_port: u16,
}

/// Encodes a model request for the unit's ports.
pub fn encode(index: usize, profile: Profile, request: &Request) -> Result<PortRequest, Error> {
    let check = |qpn: u32| {
        if qpn > MAX_QPN {
            Err(Error::QpnTooWide { index, qpn })
        } else {
            Ok(qpn)
        }
    };
    let profile = profile.code();
    Ok(match *request {
        Request::Qp {
            lqpn,
            rqpn,
            flow_label,
            qp_type,
        } => PortRequest {
            mode: MODE_QP,
            profile,
            qp_type: qp_type.code(),
            lqpn: check(lqpn)?,
            rqpn: check(rqpn)?,
            fl: flow_label,
            src_port: 0,
            dst_port: 0,
        },
        Request::Cm {
            src_port,
            dst_port,
            flowinfo,
            lqpn,
            rqpn,
        } => PortRequest {
            mode: MODE_CM,
            profile,
            qp_type: QpType::Rc.code(),
            lqpn: check(lqpn)?,
            rqpn: check(rqpn)?,
            fl: flowinfo,
            src_port,
            dst_port,
        },
    })
}

/// A random request that hits the edges often (the tests' and benches' stimulus): QPNs 0, 1, max, equal pairs, the multicast QPN,
/// flow labels 0, with bits above 19, CM ports 0 and 65535.
pub fn random_request(rng: &mut impl Rng) -> Request {
    let qpn = |rng: &mut dyn rand::RngCore| match rng.gen_range(0..8) {
        0 => 0,
        1 => 1,
        2 => MAX_QPN,
        3 => 1 << rng.gen_range(0..24),
        _ => rng.gen_range(0..=MAX_QPN),
    };
    let lqpn = qpn(rng);
    let rqpn = match rng.gen_range(0..6) {
        0 => lqpn,
        1 => MULTICAST_QPN,
        _ => qpn(rng),
    };
    let fl = match rng.gen_range(0..6) {
        0..=2 => 0,
        3 => rng.gen_range(1..=0xF_FFFF),
        4 => rng.gen_range(1..=0xFFF) << 20, // only bits above the flow label
        _ => rng.gen(),
    };
    if rng.gen_bool(0.7) {
        let qp_type = if rng.gen_bool(0.5) {
            QpType::Rc
        } else {
            QpType::Ud
        };
        Request::Qp {
            lqpn,
            rqpn,
            flow_label: fl,
            qp_type,
        }
    } else {
        let mut port = || match rng.gen_range(0..5) {
            0 => 0,
            1 => 65535,
            _ => rng.gen(),
        };
        let (src_port, dst_port) = (port(), port());
        Request::Cm {
            src_port,
            dst_port,
            flowinfo: fl,
            lqpn,
            rqpn,
        }
    }
}

/// How the stimulus treats the unit: probability of an idle source cycle, of a stalled sink
/// cycle, and the seed of both.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability per cycle that the source waits before offering the next request.
    pub idle: f64,
    /// Probability per cycle that the sink holds `ready` low.
    pub stall: f64,
    /// The seed of both.
    pub seed: u64,
}

impl Traffic {
    /// Back-to-back requests and an always-ready sink.
    pub const FULL_RATE: Traffic = Traffic {
        idle: 0.0,
        stall: 0.0,
        seed: 0,
    };
}

/// What a batch measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cycles from the first acceptance to the last result handshake, inclusive of both.
    pub busy_cycles: u64,
    /// Results whose handshake was exactly [`LATENCY`] cycles after their request's acceptance.
    pub on_time: u64,
    /// Results that took longer (only possible under back-pressure).
    pub late: u64,
}

/// Drives the request fields.
fn set_request<D: EntropyUnitPorts>(dut: &mut D, r: &PortRequest) {
    dut.set_s_req_mode(r.mode & 1 != 0);
    dut.set_s_req_profile(r.profile);
    dut.set_s_req_qp_type(r.qp_type & 1 != 0);
    dut.set_s_req_lqpn(r.lqpn);
    dut.set_s_req_rqpn(r.rqpn);
    dut.set_s_req_fl(r.fl);
    dut.set_s_req_src_port(r.src_port);
    dut.set_s_req_dst_port(r.dst_port);
}

/// The result on the ports.
fn result<D: EntropyUnitPorts>(dut: &D) -> Entropy {
    Entropy {
        flow_label: dut.m_res_flow_label(),
        udp_sport: dut.m_res_udp_sport(),
    }
}

/// The co-simulated entropy unit (by default the 18-bit-split build that `--engine rtl` runs).
pub struct EntropyRtl<D: EntropyUnitPorts = EntropyUnit> {
    sim: Sim<D>,
}

impl<D: EntropyUnitPorts> EntropyRtl<D> {
    /// A unit out of reset; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        sim.dut.set_s_req_valid(false);
        sim.dut.set_m_res_ready(false);
        sim.reset(4);
        EntropyRtl { sim }
    }

    /// The simulation, for tests that drive the ports themselves.
    pub fn sim(&mut self) -> &mut Sim<D> {
        &mut self.sim
    }

    /// Runs a batch; `on_result(i, e)` sees result `i` at its handshake. Checks on every cycle
    /// that a stalled result stays valid and unchanged.
    pub fn run(
        &mut self,
        requests: &[(Profile, Request)],
        traffic: Traffic,
        mut on_result: impl FnMut(usize, Entropy),
    ) -> Result<Stats, Error> {
        let mut source = Source::new(traffic.seed, traffic.idle);
        for (i, (p, r)) in requests.iter().enumerate() {
            source.push(encode(i, *p, r)?);
        }
        let mut sink = Sink::new(traffic.seed, traffic.stall);
        let limit = 64 * requests.len() as u64 + 1000;
        let start = self.sim.cycle();
        let mut accepted_at: VecDeque<u64> = VecDeque::new();
        let (mut done, mut first_accept) = (0usize, None);
        let mut stats = Stats::default();
        let mut held: Option<Entropy> = None;
        while done < requests.len() {
            if self.sim.cycle() - start > limit {
                return Err(Error::Hang(self.sim.hang("entropy batch")));
            }
            let offer = source.offer().copied();
            let ready = sink.ready();
            let now = self.sim.cycle();
            let d = &mut self.sim.dut;
            d.set_s_req_valid(offer.is_some());
            if let Some(r) = offer {
                set_request(d, &r);
            }
            d.set_m_res_ready(ready);
            // Outputs are registered: what is visible now is this cycle's, before the edge.
            let valid = d.m_res_valid();
            if let Some(prev) = held.take() {
                if !valid || result(d) != prev {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: result {done} changed or vanished while stalled"
                    )));
                }
            }
            if source.accepted(d.s_req_ready()).is_some() {
                accepted_at.push_back(now);
                first_accept.get_or_insert(now);
            }
            if valid {
                let e = result(d);
                if ready {
                    let Some(at) = accepted_at.pop_front() else {
                        return Err(Error::Protocol(format!(
                            "cycle {now}: a result with no request outstanding"
                        )));
                    };
                    if now - at == LATENCY {
                        stats.on_time += 1;
                    } else {
                        stats.late += 1;
                    }
                    on_result(done, e);
                    done += 1;
                    if done == requests.len() {
                        stats.busy_cycles = now - first_accept.unwrap_or(now) + 1;
                    }
                } else {
                    held = Some(e);
                }
            }
            self.sim.step();
        }
        // Drain: nothing more may come out.
        self.sim.dut.set_s_req_valid(false);
        self.sim.dut.set_m_res_ready(true);
        for _ in 0..LATENCY + 2 {
            if self.sim.dut.m_res_valid() {
                return Err(Error::Protocol("a result beyond the last request".into()));
            }
            self.sim.step();
        }
        Ok(stats)
    }

    /// Runs a batch at full rate and returns the results in order (what `rocenic entropy
    /// --engine rtl` uses).
    pub fn compute(&mut self, requests: &[(Profile, Request)]) -> Result<Vec<Entropy>, Error> {
        let mut out = Vec::with_capacity(requests.len());
        self.run(requests, Traffic::FULL_RATE, |_, e| out.push(e))?;
        Ok(out)
    }
}
