//! The requester's two delays in clock ticks (docs/rc.md, "Timers"): the local ACK timeout
//! (verbs `timeout`: 4.096 µs × 2^timeout, 0 meaning none) and the RNR delay a RNR NAK's timer
//! code names. The caller's clock runs in its own ticks; [`Scale`] says how many of them make
//! 4.096 µs, so a co-simulation can shrink milliseconds to a few hundred cycles by choosing a
//! small scale, and a board uses its real clock rate.

/// The delay each RNR timer code names, in microseconds (IBTA's table, as verbs
/// `enum ib_rnr_timeout` names them: code 0 is the longest, 655.36 ms).
pub const RNR_DELAY_US: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840,
    5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840,
    245_760, 327_680, 491_520,
];

/// Clock ticks per 4.096 µs: the base unit of the ACK timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale(pub u64);

impl Scale {
    /// A clock of `mhz` MHz: 4.096 µs is `4.096 × mhz` ticks (rounded up, at least 1).
    pub const fn from_mhz(mhz: u64) -> Scale {
        let t = (mhz * 4096).div_ceil(1000);
        Scale(if t == 0 { 1 } else { t })
    }

    /// The local ACK timeout of verbs `timeout` (`0..=31`) in ticks, `None` for 0 (wait
    /// forever). Saturates rather than wraps for huge scales.
    pub const fn ack_timeout(self, timeout: u8) -> Option<u64> {
        if timeout == 0 {
            return None;
        }
        let shift = if timeout > 31 { 31 } else { timeout };
        Some(self.0.saturating_mul(1u64 << shift))
    }

    /// The RNR delay of timer code `code` (low five bits) in ticks, rounded up, at least 1.
    pub const fn rnr_delay(self, code: u8) -> u64 {
        let ns = RNR_DELAY_US[(code & 0x1F) as usize] as u64 * 1000;
        let t = ns.saturating_mul(self.0).div_ceil(4096);
        if t == 0 {
            1
        } else {
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_timeout_doubles_per_step() {
        // One tick per nanosecond (1 GHz): timeout 14 is 4.096 µs × 16384 ≈ 67.1 ms.
        let ns = Scale::from_mhz(1000);
        assert_eq!(ns, Scale(4096));
        assert_eq!(ns.ack_timeout(0), None);
        assert_eq!(ns.ack_timeout(1), Some(8192));
        assert_eq!(ns.ack_timeout(14), Some(67_108_864));
        assert_eq!(Scale(1).ack_timeout(31), Some(1 << 31));
        assert_eq!(Scale(u64::MAX).ack_timeout(31), Some(u64::MAX));
        assert_eq!(Scale::from_mhz(250), Scale(1024));
        assert_eq!(Scale::from_mhz(0), Scale(1));
    }

    #[test]
    fn rnr_delays_follow_the_code_table() {
        let ns = Scale(4096);
        assert_eq!(ns.rnr_delay(1), 10_000);
        assert_eq!(ns.rnr_delay(0), 655_360_000);
        assert_eq!(ns.rnr_delay(31), 491_520_000);
        assert_eq!(ns.rnr_delay(32 + 1), 10_000, "five bits");
        // Rising with the code, except code 0 which is the longest.
        for c in 2..32 {
            assert!(RNR_DELAY_US[c] > RNR_DELAY_US[c - 1]);
        }
        assert!(RNR_DELAY_US[0] > RNR_DELAY_US[31]);
        // A tiny scale still waits at least one tick.
        assert_eq!(Scale(1).rnr_delay(1), 3);
        assert_eq!(Scale(0).rnr_delay(1), 1);
    }
}
