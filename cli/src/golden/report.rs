//! The HTML report of `rocenic golden check` and `check-pcap` (`--html FILE`): one
//! self-contained page a person reads: no script, no style sheet or font fetched from anywhere,
//! figures as inline SVG drawn with the plotters crate.

use crate::output::Output;
use crate::Failure;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// The most rows a table shows; the rest are counted under it (a capture can have millions).
pub const MAX_ROWS: usize = 1000;

/// A report page, built section by section and written once.
pub struct Page {
    title: String,
    body: String,
}

/// How a table row is marked: the page colours mismatches and unknowns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mark {
    Plain,
    Good,
    Bad,
    Unknown,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Plain => "",
            Mark::Good => " class=\"good\"",
            Mark::Bad => " class=\"bad\"",
            Mark::Unknown => " class=\"unknown\"",
        }
    }
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:72em}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}\
table{border-collapse:collapse;margin:.5em 0}\
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;font-variant-numeric:tabular-nums}\
th{background:#f3f3f3}tr.good td.verdict{color:#17663a}tr.bad{background:#fde8e8}\
tr.unknown{background:#f4f4f4;color:#666}p.note{color:#555}figure{margin:1em 0}";

impl Page {
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            body: String::new(),
        }
    }

    /// A heading of a section.
    pub fn heading(&mut self, text: &str) {
        let _ = writeln!(self.body, "<h2>{}</h2>", escape(text));
    }

    /// A paragraph of text.
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"note\">{}</p>", escape(text));
    }

    /// A table with an id (for tests and links), a header and marked rows; rows past
    /// [`MAX_ROWS`] are counted, not shown.
    pub fn table(
        &mut self,
        id: &str,
        header: &[&str],
        rows: impl IntoIterator<Item = (Mark, Vec<String>)>,
    ) {
        let b = &mut self.body;
        let _ = write!(b, "<table id=\"{}\"><thead><tr>", escape(id));
        for h in header {
            let _ = write!(b, "<th>{}</th>", escape(h));
        }
        let _ = writeln!(b, "</tr></thead><tbody>");
        let mut hidden = 0usize;
        for (n, (mark, cells)) in rows.into_iter().enumerate() {
            if n >= MAX_ROWS {
                hidden += 1;
                continue;
            }
            let _ = write!(b, "<tr{}>", mark.class());
            for (i, c) in cells.iter().enumerate() {
                let verdict = header.get(i) == Some(&"verdict");
                let class = if verdict { " class=\"verdict\"" } else { "" };
                let _ = write!(b, "<td{class}>{}</td>", escape(c));
            }
            let _ = writeln!(b, "</tr>");
        }
        let _ = writeln!(b, "</tbody></table>");
        if hidden > 0 {
            let _ = writeln!(
                b,
                "<p class=\"note\">The first {MAX_ROWS} rows are shown; {hidden} more are in the command's output.</p>"
            );
        }
    }

    /// An SVG figure with a caption.
    pub fn figure(&mut self, id: &str, caption: &str, svg: &str) {
        let _ = writeln!(
            self.body,
            "<figure id=\"{}\">{svg}<figcaption>{}</figcaption></figure>",
            escape(id),
            escape(caption)
        );
    }

    /// The whole page.
    pub fn render(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"generator\" content=\"rocenic {}\"><title>{}</title>\
             <style>{STYLE}</style></head>\n<body><h1>{}</h1>\n{}</body></html>\n",
            env!("CARGO_PKG_VERSION"),
            escape(&self.title),
            escape(&self.title),
            self.body
        )
    }

    /// Writes the page to `path`, which appears only when it is whole.
    pub fn write(&self, path: &Path) -> Result<(), Failure> {
        Output::run(Some(path), |out| {
            out.write_all(self.render().as_bytes())?;
            Ok(())
        })
    }
}

/// The width of a histogram bin of UDP source ports: 64 bins over 0..65536.
pub const PORT_BIN: u32 = 1024;

/// Per-bin counts of UDP source ports.
pub type PortBins = [u64; 64];

/// Counts `n` frames of `port` into `bins`.
pub fn count_port(bins: &mut PortBins, port: u16, n: u64) {
    bins[usize::from(port) / PORT_BIN as usize] += n;
}

/// One histogram per group (a verdict, say) of UDP source ports, stacked, as an SVG document.
pub fn port_histograms(groups: &[(&str, &PortBins)]) -> Result<String, Failure> {
    let mut svg = String::new();
    {
        let height = 60 + 180 * groups.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        let plot = |e: &dyn std::fmt::Display| Failure(format!("drawing the histogram: {e}"));
        root.fill(&WHITE).map_err(|e| plot(&e))?;
        let areas = root.split_evenly((groups.len().max(1), 1));
        for ((name, bins), area) in groups.iter().zip(areas) {
            let top = bins.iter().copied().max().unwrap_or(0).max(1);
            let mut chart = ChartBuilder::on(&area)
                .caption(format!("{name}: UDP source ports"), ("sans-serif", 16))
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0u32..64u32, 0u64..top + top / 10 + 1)
                .map_err(|e| plot(&e))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(9)
                .x_desc("port")
                .y_desc("frames")
                .x_label_formatter(&|bin| format!("{:#06x}", bin * PORT_BIN))
                .draw()
                .map_err(|e| plot(&e))?;
            let color = match *name {
                "match" => RGBColor(23, 102, 58),
                "mismatch" => RGBColor(192, 40, 40),
                _ => RGBColor(120, 120, 120),
            };
            chart
                .draw_series(
                    bins.iter()
                        .enumerate()
                        .filter(|(_, &n)| n > 0)
                        .map(|(i, &n)| {
                            let i = i as u32;
                            Rectangle::new([(i, 0), (i + 1, n)], color.filled())
                        }),
                )
                .map_err(|e| plot(&e))?;
        }
        root.present().map_err(|e| plot(&e))?;
    }
    // The page holds the SVG inline: drop the XML declaration if the backend wrote one.
    Ok(match svg.find("<svg") {
        Some(at) => svg[at..].to_string(),
        None => svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_escape_and_hold_their_parts() {
        let mut p = Page::new("a <b> & c");
        p.heading("Flows");
        p.table(
            "flows",
            &["flow", "verdict"],
            [
                (Mark::Good, vec!["0".to_string(), "match".to_string()]),
                (Mark::Bad, vec!["<1>".to_string(), "mismatch".to_string()]),
            ],
        );
        let html = p.render();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>a &lt;b&gt; &amp; c</title>"));
        assert!(html.contains(
            "<tr class=\"bad\"><td>&lt;1&gt;</td><td class=\"verdict\">mismatch</td></tr>"
        ));
        assert!(
            !html.contains("<script") && !html.contains("http"),
            "self-contained"
        );
    }

    #[test]
    fn long_tables_are_cut_and_counted() {
        let mut p = Page::new("t");
        p.table(
            "t",
            &["n"],
            (0..MAX_ROWS + 5).map(|n| (Mark::Plain, vec![n.to_string()])),
        );
        let html = p.render();
        assert_eq!(
            html.matches("<tr>").count(),
            MAX_ROWS + 1,
            "the header and the shown rows"
        );
        assert!(html.contains("5 more are in the command's output"));
    }

    #[test]
    fn histograms_draw_one_chart_per_group() {
        let mut good = [0u64; 64];
        let mut bad = [0u64; 64];
        for p in [0xC000u16, 0xC001, 0xFFFF] {
            count_port(&mut good, p, 1);
        }
        count_port(&mut bad, 0, 1);
        assert_eq!((good[48], good[63], bad[0]), (2, 1, 1));
        let svg = port_histograms(&[("match", &good), ("mismatch", &bad)]).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(
            svg.contains("match: UDP source ports") && svg.contains("mismatch: UDP source ports")
        );
        assert!(svg.contains("\n0x0000\n"), "port labels in hex");
        // The background, then one bar per non-empty bin: two in the first chart, one in the
        // second.
        assert_eq!(svg.matches("<rect").count(), 1 + 3);
        assert!(!svg.contains("http://") || svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    }
}
