//! A firmware image for the NIC's processor, whose size docs/firmware.md reports:
//!
//! ```sh
//! cargo build --release -p rocenic-firmware --example image --target riscv32imc-unknown-none-elf
//! size target/riscv32imc-unknown-none-elf/release/examples/image
//! ```
//!
//! It brings the NIC up as the co-simulation tests do, over memory-mapped registers: the WQE
//! engine (addresses, profile, completion ring, a region, an RC QP with QPN- or CM-based
//! entropy and a UD QP, both to RTS, their doorbells) and the RSS pipeline (a context with the
//! symmetric key and a round-robin table, a steering rule) and the receive path (a work queue
//! for each QP, READY, the QPs attached, receives posted, enabled). Its inputs come from a mailbox the
//! host fills, read through the same bus, so that no check is folded away at compile time. On
//! the host this file builds as a program that says what it is for.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(target_os = "none")]
mod image {
    use core::panic::PanicInfo;
    use rocenic_firmware::rss::{ContextConfig, SYMMETRIC_KEY};
    use rocenic_firmware::{Bus, EntropySource, Error, Mmio, RssPipeline, RxPath, WqeEngine};
    use rocenic_model::entropy::Profile;
    use rocenic_model::qp::{
        Access, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind, QPN_MAX,
    };
    use rocenic_model::rss::{Action, Function, HashFields, Rule, SteeringKey};
    use rocenic_model::rx::{RecvRing, Target, WqConfig, WqState};
    use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
    use rocenic_model::wqe::{CompletionRing, Nic, Ring, SendRing};

    /// Where the blocks and the host's mailbox sit in the processor's address space.
    const WQE_BASE: usize = 0x4000_0000;
    const RSS_BASE: usize = 0x4001_0000;
    const MAILBOX: usize = 0x4002_0000;
    const RX_BASE: usize = 0x4003_0000;

    #[panic_handler]
    fn panic(_: &PanicInfo) -> ! {
        halt()
    }

    /// Nothing is left to do: the host reads the mailbox.
    fn halt() -> ! {
        loop {
            core::hint::spin_loop();
        }
    }

    #[no_mangle]
    pub extern "C" fn _start() -> ! {
        // SAFETY: the addresses above are the blocks' windows and the mailbox, ours alone.
        let (wqe, rss, rx, mut mailbox) = unsafe {
            (
                Mmio::new(WQE_BASE),
                Mmio::new(RSS_BASE),
                Mmio::new(RX_BASE),
                Mmio::new(MAILBOX),
            )
        };
        // The outcome goes back through the mailbox: 0, or the error's discriminant + 1.
        let code = match bring_up(wqe, rss, rx, &mut mailbox) {
            Ok(()) => 0,
            Err(e) => 1 + error_code(&e),
        };
        let _ = mailbox.write(0x3C, code);
        halt()
    }

    fn error_code(e: &Error) -> u32 {
        match e {
            Error::Bus(_) => 1,
            Error::Timeout { .. } => 2,
            Error::Refused { .. } => 3,
            _ => 4,
        }
    }

    fn bring_up(wqe: Mmio, rss: Mmio, rx: Mmio, mb: &mut Mmio) -> Result<(), Error> {
        let mut w = [0u32; 15];
        for (i, word) in w.iter_mut().enumerate() {
            *word = mb.read(4 * i as u32)?;
        }
        let [profile, lqpn, rqpn, ports, lkey, base_lo, base_hi, len, sq_lo, sq_hi, cq_lo, cq_log2, queues, ud_qpn, ip] =
            w;
        let profile = Profile::from_code(profile as u8).unwrap_or_default();
        let nic = Nic {
            mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            ipv4: Ipv4Address(ip.to_be_bytes()),
            ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        };

        let mut e: WqeEngine<Mmio> = WqeEngine::open(wqe)?;
        e.configure(&nic, profile)?;
        e.set_completion_ring(u64::from(cq_lo), cq_log2)?;
        e.register_mr(&MemoryRegion {
            lkey,
            base: u64::from(base_hi) << 32 | u64::from(base_lo),
            length: len.into(),
            pd: 1,
            access: Access::LOCAL_WRITE,
        })?;
        let ring = Ring::new(6).ok_or(Error::RingSize(6))?;
        let sq = u64::from(sq_hi) << 32 | u64::from(sq_lo);
        let ring = SendRing::new(ring, 1, sq).ok_or(Error::Misaligned {
            addr: sq,
            align: 64,
        })?;
        let av = AddressVector::new(
            IpPair::V4 {
                src: nic.ipv4,
                dst: Ipv4Address((ip ^ 3).to_be_bytes()),
            },
            nic.mac,
            EthernetAddress([2, 0, 0, 0, 0, 2]),
        );
        let rc = QpConfig {
            qp_type: QpKind::Rc,
            pd: 1,
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(lqpn & QPN_MAX).unwrap_or_default(),
            dest_qpn: rqpn,
            q_key: 0,
            av: Some(av),
        };
        let source = match ports {
            0 => EntropySource::Qpn,
            p => EntropySource::Cm {
                src_port: (p >> 16) as u16,
                dst_port: p as u16,
            },
        };
        e.create_qp(lqpn, &rc, &ring, source)?;
        e.bring_up(lqpn)?;
        let ud = QpConfig {
            qp_type: QpKind::Ud,
            av: None,
            q_key: 0x1111_1111,
            ..rc
        };
        e.create_qp(ud_qpn, &ud, &ring, EntropySource::Qpn)?;
        e.bring_up(ud_qpn)?;
        e.enable()?;
        e.ring_doorbell(lqpn, 1)?;
        e.ring_doorbell(ud_qpn, 1)?;
        e.wait_idle()?;
        if let Some(entropy) = e.qp(lqpn).and_then(|q| q.entropy) {
            mb.write(0x40, entropy.flow_label)?;
            mb.write(0x44, entropy.udp_sport.into())?;
        }

        let mut r: RssPipeline<Mmio> = RssPipeline::open(rss)?;
        let mut table = [0u16; 128];
        let n = (queues as usize).clamp(1, table.len());
        for (i, t) in table.iter_mut().enumerate() {
            *t = (i % n) as u16;
        }
        let hash = ContextConfig {
            function: Function::Toeplitz,
            fields: HashFields::DEFAULT | HashFields::BTH_DEST_QPN,
            key: &SYMMETRIC_KEY,
        };
        r.set_context(0, &hash, &table)?;
        let rule = Rule {
            enabled: true,
            value: SteeringKey {
                dst_port: 4791,
                ..SteeringKey::default()
            },
            mask: SteeringKey {
                dst_port: 0xFFFF,
                ..SteeringKey::default()
            },
            action: Action::Context(0),
        };
        r.set_rule(0, &rule)?;
        table.reverse();
        r.set_table(0, &table)?;

        // The receive path: each QP's own queue, after the send side's rings; the RC QP
        // expects the peer's first PSN, which the host leaves in the mailbox.
        let epsn = Psn::new(mb.read(0x48)? & QPN_MAX).unwrap_or_default();
        let mut x: RxPath<Mmio> = RxPath::open(rx)?;
        for (n, (qpn, config)) in [(lqpn, &rc), (ud_qpn, &ud)].into_iter().enumerate() {
            let at = sq + 0x1_0000 * (n as u64 + 1);
            let ring = RecvRing::new(Ring::new(6).ok_or(Error::RingSize(6))?, 0, at).ok_or(
                Error::Misaligned {
                    addr: at,
                    align: 64,
                },
            )?;
            let cq = CompletionRing::new(ring.ring(), 0).ok_or(Error::RingSize(6))?;
            let wq = n as u16;
            x.create_wq(
                wq,
                &WqConfig {
                    qpn,
                    pd: 1,
                    ring,
                    cq,
                    cq_base: at + 0x8000,
                    raw: false,
                },
            )?;
            x.modify_wq(wq, WqState::Ready)?;
            x.attach(qpn, config, Target::Own(wq), epsn)?;
            x.post_receives(wq, 64)?;
        }
        x.enable()
    }
}

#[cfg(not(target_os = "none"))]
fn main() {
    println!(
        "the firmware image is built for the NIC's processor: cargo build --release -p \
         rocenic-firmware --example image --target riscv32imc-unknown-none-elf"
    );
}
