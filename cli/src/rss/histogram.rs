//! The per-queue spread of `rocenic rss`: a CSV for scripts, bars for a person at a terminal,
//! and an SVG bar chart (`--plot FILE.svg`) for a page or a report.

use crate::Failure;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// The widest bar, in character cells.
const BAR_CELLS: usize = 40;
/// Eighths of a cell, so that a bar's length is read to 1/320 of the widest.
const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

fn share(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

/// `queue,packets,share`, one row per queue.
pub fn csv(per_queue: &[u64]) -> String {
    let total: u64 = per_queue.iter().sum();
    let mut text = String::from("queue,packets,share\n");
    for (q, &n) in per_queue.iter().enumerate() {
        let _ = writeln!(text, "{q},{n},{:.1}%", share(n, total));
    }
    text
}

/// The same rows with a bar each, scaled so that the fullest queue's bar is `BAR_CELLS` wide.
pub fn bars(per_queue: &[u64]) -> String {
    let total: u64 = per_queue.iter().sum();
    let top = per_queue.iter().copied().max().unwrap_or(0).max(1);
    let mut text = String::from("queue    packets   share\n");
    for (q, &n) in per_queue.iter().enumerate() {
        let eighths = (n as u128 * (BAR_CELLS as u128 * 8) / top as u128) as usize;
        let mut bar = "█".repeat(eighths / 8);
        if !eighths.is_multiple_of(8) {
            bar.push(EIGHTHS[eighths % 8]);
        }
        let _ = writeln!(text, "{q:>5} {n:>10} {:>6.1}% {bar}", share(n, total));
    }
    text
}

/// An SVG bar chart of packets per queue, written to `path`.
pub fn plot(per_queue: &[u64], title: &str, path: &Path) -> Result<(), Failure> {
    let fail = |e: &dyn std::fmt::Display| Failure(format!("--plot {}: {e}", path.display()));
    let queues = per_queue.len() as u32;
    let top = per_queue.iter().copied().max().unwrap_or(0).max(1);
    let width = (120 + 24 * queues).clamp(480, 1600);
    {
        let root = SVGBackend::new(path, (width, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((0u32..queues).into_segmented(), 0u64..top + top / 10 + 1)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("receive queue")
            .y_desc("packets")
            .x_labels(queues.min(32) as usize)
            .draw()
            .map_err(|e| fail(&e))?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(40, 90, 160).filled())
                    .margin(2)
                    .data(
                        (0u32..)
                            .zip(per_queue.iter().copied())
                            .filter(|&(_, n)| n > 0),
                    ),
            )
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_share_and_bar_length() {
        assert_eq!(csv(&[3, 1]), "queue,packets,share\n0,3,75.0%\n1,1,25.0%\n");
        let text = bars(&[8, 4, 1, 0]);
        let rows: Vec<&str> = text.lines().skip(1).collect();
        let bar = |row: &str| row.split('%').nth(1).unwrap().trim().to_string();
        assert_eq!(bar(rows[0]).chars().count(), BAR_CELLS);
        assert_eq!(bar(rows[1]), "█".repeat(BAR_CELLS / 2));
        // 1/8 of the widest is 5 cells.
        assert_eq!(bar(rows[2]), "█".repeat(5));
        assert_eq!(bar(rows[3]), "");
        assert!(rows[0].contains("61.5%"), "{}", rows[0]);
        // No packets at all: empty bars, no division by zero.
        assert!(bars(&[0, 0]).lines().skip(1).all(|r| r.ends_with("0.0% ")));
    }

    #[test]
    fn the_plot_is_an_svg_with_a_bar_per_busy_queue() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spread.svg");
        plot(&[5, 0, 7, 2], "RSS spread", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("<svg") && svg.contains("RSS spread"));
        assert!(svg.contains("receive queue"));
        let bars = svg.matches("fill=\"#285AA0\"").count();
        assert_eq!(bars, 3, "one bar per queue with packets");
    }
}
