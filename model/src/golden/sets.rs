//! The vector sets of `rocenic golden export` and `check` (being built, issue 16).
