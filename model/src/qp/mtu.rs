//! The path MTU: the largest payload of one RoCEv2 packet.

use core::fmt;

/// A path MTU, 256 to 4096 bytes (verbs `enum ibv_mtu`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PathMtu {
    /// 256 bytes.
    Mtu256 = 1,
    /// 512 bytes.
    Mtu512 = 2,
    /// 1024 bytes (the default: fits a 1500-byte Ethernet MTU with every header).
    #[default]
    Mtu1024 = 3,
    /// 2048 bytes.
    Mtu2048 = 4,
    /// 4096 bytes.
    Mtu4096 = 5,
}

impl PathMtu {
    /// Every MTU, smallest first.
    pub const ALL: [PathMtu; 5] = [
        PathMtu::Mtu256,
        PathMtu::Mtu512,
        PathMtu::Mtu1024,
        PathMtu::Mtu2048,
        PathMtu::Mtu4096,
    ];

    /// The verbs code (`IBV_MTU_*`, 1..=5).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The MTU of a verbs code.
    pub const fn from_code(code: u8) -> Option<PathMtu> {
        match code {
            1 => Some(PathMtu::Mtu256),
            2 => Some(PathMtu::Mtu512),
            3 => Some(PathMtu::Mtu1024),
            4 => Some(PathMtu::Mtu2048),
            5 => Some(PathMtu::Mtu4096),
            _ => None,
        }
    }

    /// log2 of the size in bytes (8..=12).
    pub const fn log2(self) -> u32 {
        self as u32 + 7
    }

    /// The size in bytes.
    pub const fn bytes(self) -> u32 {
        1 << self.log2()
    }

    /// The MTU of a size in bytes, if it is one of the five.
    pub const fn from_bytes(bytes: u32) -> Option<PathMtu> {
        match bytes {
            256 => Some(PathMtu::Mtu256),
            512 => Some(PathMtu::Mtu512),
            1024 => Some(PathMtu::Mtu1024),
            2048 => Some(PathMtu::Mtu2048),
            4096 => Some(PathMtu::Mtu4096),
            _ => None,
        }
    }

    /// Packets a message of `len` bytes takes: `ceil(len / mtu)`, and 1 for an empty message.
    pub const fn packets(self, len: u32) -> u32 {
        if len == 0 {
            1
        } else {
            // No `len + mtu - 1`: that overflows near u32::MAX.
            (len >> self.log2()) + (len & (self.bytes() - 1) != 0) as u32
        }
    }
}

impl fmt::Display for PathMtu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_codes() {
        let sizes: [u32; 5] = [256, 512, 1024, 2048, 4096];
        for (m, s) in PathMtu::ALL.into_iter().zip(sizes) {
            assert_eq!(m.bytes(), s);
            assert_eq!(PathMtu::from_bytes(s), Some(m));
            assert_eq!(PathMtu::from_code(m.code()), Some(m));
        }
        assert_eq!(PathMtu::from_bytes(1500), None);
        assert_eq!(PathMtu::from_code(0), None);
        assert_eq!(PathMtu::from_code(6), None);
    }

    #[test]
    fn packet_counts() {
        let m = PathMtu::Mtu1024;
        assert_eq!(m.packets(0), 1);
        assert_eq!(m.packets(1), 1);
        assert_eq!(m.packets(1024), 1);
        assert_eq!(m.packets(1025), 2);
        assert_eq!(m.packets(3000), 3);
        assert_eq!(m.packets(u32::MAX), 1 << 22);
        assert_eq!(PathMtu::Mtu256.packets(u32::MAX), 1 << 24);
    }
}
