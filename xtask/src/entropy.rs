//! The entropy unit's port codes and the kernel constants its datapath uses:
//! `rtl/entropy/entropy_pkg.sv`, from `model::entropy`.

use crate::sv;
use rocenic_model::entropy::{
    Profile, QpType, GOLDEN_RATIO_32, MODE_CM, MODE_QP, MULTICAST_QPN, PROFILE_BITS, UDP_SPORT_BASE,
};
use std::fmt::{self, Write};

/// `rtl/entropy/entropy_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "entropy_pkg",
        "model/src/entropy.rs",
        &["The entropy unit's request codes and the kernel constants of its profiles."],
    )?;
    writeln!(
        out,
        "    // s_req_profile (and the board core's E_CTRL.PROFILE)."
    )?;
    sv::uint(out, "ENTROPY_PROFILE_W", PROFILE_BITS)?;
    for p in Profile::ALL {
        let name = format_args!("ENTROPY_PROFILE_{}", sv::ident(p.name()));
        sv::logic(out, name, PROFILE_BITS, p.code().into())?;
    }
    writeln!(out)?;
    writeln!(out, "    // s_req_mode and s_req_qp_type.")?;
    sv::logic(out, "ENTROPY_MODE_QP", 1, MODE_QP.into())?;
    sv::logic(out, "ENTROPY_MODE_CM", 1, MODE_CM.into())?;
    sv::logic(out, "ENTROPY_QP_TYPE_RC", 1, QpType::Rc.code().into())?;
    sv::logic(out, "ENTROPY_QP_TYPE_UD", 1, QpType::Ud.code().into())?;
    writeln!(out)?;
    writeln!(
        out,
        "    // The UD multicast QPN, which rfc-v1 never XORs into a port."
    )?;
    sv::logic(out, "ENTROPY_MULTICAST_QPN", 24, MULTICAST_QPN)?;
    writeln!(
        out,
        "    // The kernel's GOLDEN_RATIO_32, the multiplier of hash_32 (rxe)."
    )?;
    sv::logic(out, "ENTROPY_GOLDEN_RATIO_32", 32, GOLDEN_RATIO_32)?;
    writeln!(
        out,
        "    // Every derived UDP source port has these bits set."
    )?;
    sv::logic(out, "ENTROPY_UDP_SPORT_BASE", 16, UDP_SPORT_BASE.into())?;
    sv::close(out)
}
