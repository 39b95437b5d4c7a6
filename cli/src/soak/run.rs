//! The soak's run: the turns (post, carry, send), each message's checks as its completion
//! arrives, and the end's (docs/soak.md, "What is checked").

use super::side::{message, Msg, Side, WINDOW};
use crate::golden::rng::Rng;
use crate::sim::link::Wire;
use rocenic_model::qp::Status;
use rocenic_model::rx::{RecvCqe, RecvOpcode};
use rocenic_model::wqe::{Cqe, Memory, Opcode, Step};

/// What a run did.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) turns: u64,
    pub(super) delivered: u64,
    pub(super) bytes: u64,
    pub(super) by_opcode: [u64; 5],
    pub(super) frames: [u64; 2],
    pub(super) discarded: u64,
}

/// A message that did not arrive as sent, or a run that stopped.
pub(super) struct Broken(pub(super) String);

/// The run's state apart from the NICs.
pub(super) struct Soak {
    pub(super) wire: Wire,
    pub(super) rng: Rng,
    /// Per side and QP: messages to send.
    pub(super) quota: [Vec<u32>; 2],
    /// Per side and QP: messages completed at the sender, and receive completions matched.
    pub(super) done: [Vec<u32>; 2],
    pub(super) rdone: [Vec<u32>; 2],
    /// Frames each side sent this turn, delivered next turn.
    pub(super) flight: [Vec<Vec<u8>>; 2],
    pub(super) tally: Tally,
    /// Message sizes, smallest and largest, and kinds.
    pub(super) lens: (u32, u32),
    pub(super) ops: Vec<Opcode>,
    pub(super) stall: u64,
}

impl Soak {
    pub(super) fn run(&mut self, sides: &mut [Side; 2], shown: bool) -> Result<(), Broken> {
        let total: u64 = self.quota.iter().flatten().map(|&q| u64::from(q)).sum();
        let mut last_progress = 0u64;
        let mut shown_tenth = 0;
        while self.tally.delivered < total {
            self.tally.turns += 1;
            let turn = self.tally.turns;
            self.post(sides);
            self.deliver(sides)?;
            for s in 0..2 {
                if self.step(sides, s)? {
                    last_progress = turn;
                }
            }
            if turn - last_progress > self.stall {
                return Err(Broken(format!(
                    "a hang: no completion from turn {last_progress} to turn {turn}; in flight \
                     per QP: a {:?}, b {:?}",
                    sides[0].flight.iter().map(|f| f.len()).collect::<Vec<_>>(),
                    sides[1].flight.iter().map(|f| f.len()).collect::<Vec<_>>(),
                )));
            }
            let tenth = self.tally.delivered * 10 / total;
            if shown && tenth > shown_tenth {
                shown_tenth = tenth;
                eprintln!(
                    "soak: {} of {total} messages, turn {turn}",
                    self.tally.delivered
                );
            }
        }
        // The last ACKs and duplicates settle; nothing may complete twice.
        for _ in 0..4 {
            self.tally.turns += 1;
            self.deliver(sides)?;
            for s in 0..2 {
                if self.step(sides, s)? {
                    return Err(Broken("a completion after every message completed".into()));
                }
            }
        }
        self.finish(sides)
    }

    /// Posts new messages while a QP has room in its window.
    fn post(&mut self, sides: &mut [Side; 2]) {
        for s in 0..2 {
            let t = 1 - s;
            for i in 0..self.quota[s].len() {
                while sides[s].flight[i].len() < WINDOW && sides[s].posted[i] < self.quota[s][i] {
                    let k = sides[s].posted[i];
                    let m = message(&mut self.rng, i, k, self.lens, &self.ops);
                    if m.takes_wqe() {
                        sides[t].post_recv(i, m.dst);
                    }
                    sides[s].post_send(i, m);
                }
            }
        }
    }

    /// Last turn's frames through the wire into the other NIC.
    fn deliver(&mut self, sides: &mut [Side; 2]) -> Result<(), Broken> {
        for s in 0..2 {
            let t = 1 - s;
            for f in std::mem::take(&mut self.flight[s]) {
                self.tally.frames[s] += 1;
                for frame in self.wire.carry(s, f) {
                    let to = &mut sides[t];
                    match to.nic.receive(&mut to.mem, &frame) {
                        Ok(acc) => {
                            if let (Some(w), Some((index, c))) = (acc.wq, acc.completion) {
                                if c.status != Status::Success {
                                    return Err(Broken(format!(
                                        "{} QP {:#x}: a receive completed {:?}: {c:?}",
                                        side_name(t),
                                        c.qpn,
                                        c.status
                                    )));
                                }
                                to.nic
                                    .rx
                                    .cq_doorbell(w, index.wrapping_add(1))
                                    .map_err(|e| Broken(format!("receive CQ doorbell: {e}")))?;
                                to.recvd[usize::from(w)].push_back(c);
                            }
                        }
                        // A corrupted frame, a duplicate, a packet after a gap: the transport
                        // recovers them.
                        Err(_) => self.tally.discarded += 1,
                    }
                }
            }
        }
        Ok(())
    }

    /// One send turn of side `s`; whether it completed a message.
    fn step(&mut self, sides: &mut [Side; 2], s: usize) -> Result<bool, Broken> {
        let flight = &mut self.flight[s];
        let from = &mut sides[s];
        let step = from
            .nic
            .send_step(&mut from.mem, &mut |f: &[u8]| flight.push(f.to_vec()))
            .map_err(|e| Broken(format!("NIC {}: {e:?}", side_name(s))))?;
        let Step::Ran {
            qpn,
            cqe: Some((index, c)),
        } = step
        else {
            return Ok(false);
        };
        from.nic
            .queues
            .cq_doorbell(index.wrapping_add(1))
            .map_err(|e| Broken(format!("send CQ doorbell: {e:?}")))?;
        let i = from
            .qpns
            .iter()
            .position(|&q| q == qpn)
            .ok_or_else(|| Broken(format!("a completion of QP {qpn:#x}, not the soak's")))?;
        self.complete(sides, s, i, c)?;
        Ok(true)
    }

    /// Side `s`'s QP `i` completed `c`: its oldest message must have arrived as sent.
    fn complete(
        &mut self,
        sides: &mut [Side; 2],
        s: usize,
        i: usize,
        c: Cqe,
    ) -> Result<(), Broken> {
        let t = 1 - s;
        let k = self.done[s][i];
        let at = format!("{} QP {:#x} message {k}", side_name(s), sides[s].qpns[i]);
        let m = sides[s].flight[i]
            .pop_front()
            .ok_or_else(|| Broken(format!("{at}: a completion with nothing in flight: {c:?}")))?;
        if (c.wr_id, c.status, c.byte_len) != (u64::from(k), Status::Success, m.len) {
            return Err(Broken(format!(
                "{at} ({:?}, {} B): completed {:?} (WR id {}, {} B)",
                m.opcode, m.len, c.status, c.wr_id, c.byte_len
            )));
        }
        if m.takes_wqe() {
            let r = sides[t].recvd[i].pop_front().ok_or_else(|| {
                Broken(format!(
                    "{at} ({:?}): acknowledged with no receive completion",
                    m.opcode
                ))
            })?;
            self.received(&at, &m, &r, self.rdone[t][i])?;
            self.rdone[t][i] += 1;
        }
        let (src, dst) = if m.opcode == Opcode::RdmaRead {
            (t, s)
        } else {
            (s, t)
        };
        let want = sides[src].read(m.src, m.len);
        let got = sides[dst].read(m.dst, m.len);
        if got != want {
            let first = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
            return Err(Broken(format!(
                "{at} ({:?}, {} B): landed bytes differ from byte {first}",
                m.opcode, m.len
            )));
        }
        // Cleared, so that the slot's next message cannot pass on these bytes.
        sides[dst]
            .mem
            .write(m.dst, &vec![0u8; m.len as usize])
            .map_err(|e| Broken(format!("{at}: {e:?}")))?;
        self.done[s][i] += 1;
        self.tally.delivered += 1;
        self.tally.bytes += u64::from(m.len);
        self.tally.by_opcode[opcode_slot(m.opcode)] += 1;
        Ok(())
    }

    /// The receive completion `r`, the `n`th of its queue, for message `m`.
    fn received(&self, at: &str, m: &Msg, r: &RecvCqe, n: u32) -> Result<(), Broken> {
        let opcode = if m.opcode == Opcode::RdmaWriteImm {
            RecvOpcode::RecvRdmaWithImm
        } else {
            RecvOpcode::Recv
        };
        let imm = if m.opcode.has_imm() { m.imm } else { 0 };
        let want = (u64::from(n), Status::Success, m.len, opcode, imm);
        let got = (r.wr_id, r.status, r.byte_len, r.opcode, r.imm);
        if got != want {
            return Err(Broken(format!(
                "{at} ({:?}, {} B): receive completion (WR id, status, length, opcode, \
                 immediate) {got:?}, expected {want:?}",
                m.opcode, m.len
            )));
        }
        Ok(())
    }

    /// After the last completion: every message executed once, no receive left over.
    fn finish(&self, sides: &[Side; 2]) -> Result<(), Broken> {
        for s in 0..2 {
            let t = 1 - s;
            for i in 0..self.quota[s].len() {
                let qpn = sides[t].qpns[i];
                if let Some(r) = sides[t].recvd[i].front() {
                    return Err(Broken(format!(
                        "{} QP {qpn:#x}: a receive completion no message explains: {r:?}",
                        side_name(t)
                    )));
                }
                let msn = sides[t].nic.rx.responder(qpn).map_or(0, |r| r.msn());
                let want = self.quota[s][i] & 0xFF_FFFF;
                if msn != want {
                    return Err(Broken(format!(
                        "{} QP {qpn:#x}: the responder executed {msn} messages (MSN), {want} \
                         were sent",
                        side_name(t)
                    )));
                }
            }
        }
        Ok(())
    }
}

pub(super) fn side_name(s: usize) -> &'static str {
    ["a", "b"][s]
}

fn opcode_slot(o: Opcode) -> usize {
    match o {
        Opcode::Send => 0,
        Opcode::SendImm => 1,
        Opcode::RdmaWrite => 2,
        Opcode::RdmaWriteImm => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::super::side::side;
    use super::super::OPS;
    use super::*;
    use crate::sim::link::Link;
    use rocenic_model::rc::Reliable;

    /// The two NICs with one QP each way and a run of one message from a (the seed's first is
    /// a SEND of 5,000 bytes) on a wire losing `loss` of the frames, a hang declared after
    /// `stall` turns.
    fn one_message(rel: Reliable, loss: f64, stall: u64) -> ([Side; 2], Soak) {
        let mut rng = Rng::new(5);
        let sides = [
            side(1, 1, &[10], &[20], rel, &mut rng),
            side(2, 1, &[20], &[10], rel, &mut rng),
        ];
        let link = Link {
            loss,
            duplicate: 0.0,
            corrupt: 0.0,
            reliable: rel,
        };
        let soak = Soak {
            wire: Wire::new(link, 1),
            rng: Rng::new(1),
            quota: [vec![1], vec![0]],
            done: [vec![0], vec![0]],
            rdone: [vec![0], vec![0]],
            flight: [Vec::new(), Vec::new()],
            tally: Tally::default(),
            lens: (1, 5000),
            ops: OPS.to_vec(),
            stall,
        };
        (sides, soak)
    }

    /// [`one_message`] on a perfect wire, run by hand; `meddle` runs after every delivery,
    /// with the sides.
    fn one_send(meddle: impl Fn(&mut [Side; 2])) -> Result<(), Broken> {
        let (mut sides, mut soak) = one_message(Reliable::default(), 0.0, 1000);
        soak.post(&mut sides);
        assert_eq!(
            sides[0].flight[0][0].opcode,
            Opcode::Send,
            "the seed's first message"
        );
        for _ in 0..200 {
            soak.deliver(&mut sides)?;
            meddle(&mut sides);
            for s in 0..2 {
                soak.step(&mut sides, s)?;
            }
            if soak.tally.delivered == 1 {
                return soak.finish(&sides);
            }
        }
        Err(Broken("not delivered".into()))
    }

    #[test]
    fn a_message_as_sent_passes() {
        assert!(one_send(|_| {}).is_ok());
    }

    /// No completion for `stall` turns (every frame lost, a timeout far longer than that): the
    /// run stops and names the turns, not waiting for ever.
    #[test]
    fn a_stall_is_reported() {
        let rel = Reliable {
            timeout: 20,
            ..Reliable::default()
        };
        let (mut sides, mut soak) = one_message(rel, 1.0, 300);
        let Err(Broken(why)) = soak.run(&mut sides, false) else {
            panic!("a run on a dead wire passed")
        };
        assert!(
            why.contains("a hang: no completion from turn 0 to turn 301"),
            "{why}"
        );
    }

    /// A byte of the landed message changed before the sender's completion: caught.
    #[test]
    fn a_changed_byte_is_caught() {
        let r = one_send(|s| {
            if let Some(c) = s[1].recvd[0].front() {
                // The last byte, made unlike the source's (the same each turn).
                let m = s[0].flight[0][0];
                let last = u64::from(c.byte_len) - 1;
                let src = s[0].read(m.src + last, 1)[0];
                s[1].mem.write(m.dst + last, &[!src]).unwrap();
            }
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(why.contains("landed bytes differ from byte"), "{why}");
    }

    /// The receive completion lost: caught at the sender's completion.
    #[test]
    fn a_missing_receive_completion_is_caught() {
        let r = one_send(|s| {
            s[1].recvd[0].clear();
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(
            why.contains("acknowledged with no receive completion"),
            "{why}"
        );
    }

    /// A receive completion twice: the second is left over at the end.
    #[test]
    fn a_receive_completion_twice_is_caught() {
        let r = one_send(|s| {
            if let Some(&c) = s[1].recvd[0].front() {
                if s[1].recvd[0].len() == 1 {
                    s[1].recvd[0].push_back(c);
                }
            }
        });
        let Err(Broken(why)) = r else {
            panic!("passed")
        };
        assert!(
            why.contains("a receive completion no message explains"),
            "{why}"
        );
    }
}
