//! Generated sections of hand-written pages: `cargo xtask gen` owns the lines between the
//! markers and nothing else, and refuses a page whose markers are not there once each.

use xtask::{section_begin, section_end, splice, OUTPUTS};

fn page(name: &str, body: &str) -> String {
    format!(
        "# Title\n\nby hand\n{} x -->\n{body}{}\nby hand after\n",
        section_begin(name),
        section_end(name)
    )
}

#[test]
fn splice_replaces_the_marked_lines_only() {
    let new = format!("{} y -->\nnew\n{}\n", section_begin("A"), section_end("A"));
    let text = page("A", "old\nolder\n") + &page("B", "other\n");
    let want = format!("# Title\n\nby hand\n{new}by hand after\n") + &page("B", "other\n");
    assert_eq!(splice(&text, "A", &new).as_deref(), Some(want.as_str()));
}

#[test]
fn splice_refuses_missing_repeated_or_reversed_markers() {
    let new = "anything\n";
    assert_eq!(splice("# Title\n", "A", new), None);
    assert_eq!(splice(&page("A", ""), "B", new), None);
    assert_eq!(splice(&(page("A", "") + &page("A", "")), "A", new), None);
    let reversed = format!("{}\n{} x -->\n", section_end("A"), section_begin("A"));
    assert_eq!(splice(&reversed, "A", new), None);
    // A name that starts another's is not that other.
    assert_eq!(splice(&page("AB", ""), "A", new), None);
}

/// Every section in the repository: a hand edit inside it is undone by `gen` (so `--check`
/// flags it), an edit outside it is kept.
#[test]
fn sections_own_their_lines_and_no_others() {
    let root = xtask::repo_root();
    let sections: Vec<_> = OUTPUTS.iter().filter(|o| o.path.contains('#')).collect();
    assert!(!sections.is_empty());
    for o in sections {
        let text = std::fs::read_to_string(root.join(o.file())).unwrap();
        let current = o.expected(Some(&text)).unwrap();
        let section = o.rendered();
        assert_eq!(current.matches(&section).count(), 1, "{}", o.path);

        let tampered = section.replacen("\n\n", "\n\nedited by hand\n", 1);
        let inside = current.replacen(&section, &tampered, 1);
        assert_ne!(inside, current);
        assert_eq!(o.expected(Some(&inside)), Ok(current.clone()), "{}", o.path);

        let outside = format!("{current}\nadded by hand\n");
        assert_eq!(
            o.expected(Some(&outside)),
            Ok(outside.clone()),
            "{}",
            o.path
        );
    }
}
