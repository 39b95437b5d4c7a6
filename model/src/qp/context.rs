//! One QP's context: its configuration, state, next PSN and (RC) fixed entropy.

use super::entropy::qp_entropy;
use super::{AddressVector, AvError, IllegalTransition, PathMtu, Psn, QpKind, QpState};
use crate::entropy::{Entropy, Profile, QpType};
use crate::rc::QpTransport;

/// Largest QPN (24 bits).
pub const QPN_MAX: u32 = 0x00FF_FFFF;
/// QPNs 0 (SMI) and 1 (GSI) are reserved: a table's QPNs start here.
pub const QPN_MIN: u32 = 2;

/// What software sets when it creates a QP (the attributes verbs sets across the
/// RESET→INIT→RTR→RTS modifies, given at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QpConfig {
    /// RC, UD or raw packet.
    pub qp_type: QpKind,
    /// Protection domain: gather entries must name regions of this PD.
    pub pd: u32,
    /// Path MTU (RC segments messages by it; UD messages must fit in one). Raw: unused (a
    /// frame is bounded by the port's largest frame instead).
    pub mtu: PathMtu,
    /// First send PSN (raw: unused, it sends no BTH).
    pub psn: Psn,
    /// RC: the connected QP. UD and raw: unused (a UD request names its own).
    pub dest_qpn: u32,
    /// Q_Key (UD).
    pub q_key: u32,
    /// RC: the peer's address vector. UD: `None` (each request carries one). Raw: `None` (the
    /// frame carries its own addresses).
    pub av: Option<AddressVector>,
}

/// Why a QP could not be created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The QPN is reserved (0, 1) or wider than 24 bits.
    Qpn,
    /// The destination QPN is wider than 24 bits.
    DestQpn,
    /// An RC QP without an address vector.
    MissingAv,
    /// A raw-packet QP with an address vector (its frames carry their own addresses).
    RawAv,
    /// A field of the address vector out of range.
    Av(AvError),
}

/// A QP's context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QpContext {
    qpn: u32,
    config: QpConfig,
    state: QpState,
    next_psn: Psn,
    entropy: Option<Entropy>,
    transport: QpTransport,
}

impl QpContext {
    /// A QP in RESET, once its configuration checks out.
    pub const fn new(qpn: u32, config: QpConfig) -> Result<QpContext, ConfigError> {
        if qpn < QPN_MIN || qpn > QPN_MAX {
            return Err(ConfigError::Qpn);
        }
        if config.dest_qpn > QPN_MAX {
            return Err(ConfigError::DestQpn);
        }
        match (&config.av, config.qp_type) {
            (None, QpKind::Rc) => return Err(ConfigError::MissingAv),
            (Some(_), QpKind::Raw) => return Err(ConfigError::RawAv),
            (Some(av), _) => {
                if let Err(e) = av.validate() {
                    return Err(ConfigError::Av(e));
                }
            }
            (None, QpKind::Ud | QpKind::Raw) => {}
        }
        Ok(QpContext {
            qpn,
            config,
            state: QpState::Reset,
            next_psn: config.psn,
            entropy: None,
            transport: QpTransport {
                timeout: None,
                retry_cnt: None,
                rnr_retry: None,
                min_rnr_timer: None,
            },
        })
    }

    /// The QPN.
    pub const fn qpn(&self) -> u32 {
        self.qpn
    }

    /// The configuration.
    pub const fn config(&self) -> &QpConfig {
        &self.config
    }

    /// The state.
    pub const fn state(&self) -> QpState {
        self.state
    }

    /// The PSN of the next packet sent.
    pub const fn next_psn(&self) -> Psn {
        self.next_psn
    }

    /// RC: the UDP source port and flow label fixed on entering RTR; `None` before (and for UD).
    pub const fn entropy(&self) -> Option<Entropy> {
        self.entropy
    }

    /// RC: its own transport attributes (none by default: the NIC's settings).
    pub const fn transport(&self) -> QpTransport {
        self.transport
    }

    /// Sets its transport attributes (verbs sets them with RTR and RTS): a requester and a
    /// responder take them when they start, at the QP's first packet each way. `false`, and
    /// nothing changed, if one is out of range.
    pub fn set_transport(&mut self, t: QpTransport) -> bool {
        if !t.valid() {
            return false;
        }
        self.transport = t;
        true
    }

    /// A verbs modify to `to`. Entering RTR from INIT fixes an RC QP's entropy under `profile`;
    /// RESET forgets it and rewinds the PSN to the configured first one.
    pub fn modify(&mut self, to: QpState, profile: Profile) -> Result<(), IllegalTransition> {
        let from = self.state;
        self.state = from.modify(to)?;
        match to {
            QpState::Rtr if from == QpState::Init => {
                self.entropy = match (self.config.qp_type, &self.config.av) {
                    (QpKind::Rc, Some(av)) => Some(qp_entropy(
                        profile,
                        QpType::Rc,
                        self.qpn,
                        self.config.dest_qpn,
                        av,
                    )),
                    _ => None,
                }
            }
            QpState::Reset => {
                self.entropy = None;
                self.next_psn = self.config.psn;
            }
            _ => {}
        }
        Ok(())
    }

    /// The engine's move to ERR after a failed request; from any state, unlike a modify.
    pub fn set_error(&mut self) {
        self.state = QpState::Err;
    }

    /// Takes `packets` consecutive PSNs, returning the first (PSNs wrap modulo 2^24).
    pub fn take_psns(&mut self, packets: u32) -> Psn {
        let first = self.next_psn;
        self.next_psn = first.add(packets);
        first
    }

    /// The entropy of one packet to `dest_qpn` over `av`: a UD request's (computed from its own
    /// vector), or for RC the one fixed at RTR, whatever is passed; none for a raw QP.
    pub const fn entropy_for(
        &self,
        profile: Profile,
        dest_qpn: u32,
        av: &AddressVector,
    ) -> Option<Entropy> {
        match self.config.qp_type {
            QpKind::Rc => self.entropy,
            QpKind::Ud => Some(qp_entropy(profile, QpType::Ud, self.qpn, dest_qpn, av)),
            QpKind::Raw => None,
        }
    }
}
