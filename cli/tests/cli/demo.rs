//! `rocenic demo`: what `make run` shows.

use crate::common::{rocenic, stdout};

#[test]
fn demo_runs() {
    let o = rocenic(&["demo"], "");
    assert!(o.status.success());
    assert!(stdout(&o).contains("maps every flow and its reverse to the same queue: true"));
}
