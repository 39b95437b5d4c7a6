//! A QP's transport service as verbs names it (`ibv_qp_type`): RC, UD or raw packet.
//!
//! The entropy unit knows only RC and UD ([`QpType`], one bit in its RTL): a raw-packet QP
//! carries no RoCE headers, so it has no UDP source port or flow label to derive, and
//! [`QpKind::entropy_type`] maps the other two onto it where entropy is computed.

use crate::entropy::QpType;

/// The transport service of a QP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QpKind {
    /// Reliable connected (`IBV_QPT_RC`).
    #[default]
    Rc,
    /// Unreliable datagram (`IBV_QPT_UD`).
    Ud,
    /// Raw packet (`IBV_QPT_RAW_PACKET`): a SEND puts one whole Ethernet frame on the wire, a
    /// TSO work request a frame's worth of TCP segments; no PSN, destination QP, Q_Key or
    /// address vector. An engine has it as a capability ([`super::QpTable::set_raw`]).
    Raw,
}

impl QpKind {
    /// Every kind.
    pub const ALL: [QpKind; 3] = [QpKind::Rc, QpKind::Ud, QpKind::Raw];

    /// The entropy unit's type of an RC or UD QP; `None` for a raw one (no RoCE headers).
    pub const fn entropy_type(self) -> Option<QpType> {
        match self {
            QpKind::Rc => Some(QpType::Rc),
            QpKind::Ud => Some(QpType::Ud),
            QpKind::Raw => None,
        }
    }

    /// The lower-case name scenarios and reports use.
    pub const fn name(self) -> &'static str {
        match self {
            QpKind::Rc => "rc",
            QpKind::Ud => "ud",
            QpKind::Raw => "raw",
        }
    }
}

impl From<QpType> for QpKind {
    fn from(t: QpType) -> QpKind {
        match t {
            QpType::Rc => QpKind::Rc,
            QpType::Ud => QpKind::Ud,
        }
    }
}

/// An RC or UD QP is of the entropy unit's type of the same name; a raw QP is of neither.
impl PartialEq<QpType> for QpKind {
    fn eq(&self, other: &QpType) -> bool {
        self.entropy_type() == Some(*other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_onto_the_entropy_type() {
        for t in [QpType::Rc, QpType::Ud] {
            let k = QpKind::from(t);
            assert_eq!(k.entropy_type(), Some(t));
            assert!(k == t);
        }
        assert_eq!(QpKind::Raw.entropy_type(), None);
        assert!(QpKind::Raw != QpType::Rc && QpKind::Raw != QpType::Ud);
        assert!(QpKind::Rc != QpType::Ud);
        let names: [&str; 3] = QpKind::ALL.map(QpKind::name);
        assert_eq!(names, ["rc", "ud", "raw"]);
    }
}
