//! Text tables for a terminal: left-aligned columns two spaces apart, every cell escaped
//! ([`printable`]: cells come from catalogs and bundles), fitted to a width as kubectl and oc
//! fit theirs. Every text table po-manifests prints goes through [`render`].
//!
//! Fitting ([`Width::Fit`]) leaves out the columns marked wide-only ([`Column::wide`]), as
//! kubectl leaves out the columns `-o wide` adds, then shortens digests (`sha256:0843807a61d1…`), then narrows the
//! widest column one character at a time, never below its header, cutting its cells around
//! `…` (start and end kept: `acme-cert-op…v1.2.0`); columns marked [`Column::keep`] (a
//! reason, a version) give way only once the others are down to a readable width, and a kept
//! last column wraps onto further lines instead of being cut. [`Width::Full`] (`-o wide`) prints every
//! cell whole. Machine-readable output (`-o json|yaml`) never goes through here.

use crate::text::printable;

/// How wide a table may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// At most this many characters a line (the terminal's width; 80 when not a terminal).
    Fit(usize),
    /// Every cell whole (`-o wide`).
    Full,
}

/// A column: its header, and whether only `-o wide` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The header.
    pub header: &'static str,
    /// Shown only when the table is not fitted ([`Width::Full`]).
    pub wide_only: bool,
    /// Cut only once every other column is as narrow as it goes (a reason, a version).
    pub keep: bool,
}

impl Column {
    /// A column every table shows.
    pub const fn new(header: &'static str) -> Column {
        Column {
            header,
            wide_only: false,
            keep: false,
        }
    }

    /// A column cut only once every other column is as narrow as it goes.
    pub const fn keep(header: &'static str) -> Column {
        Column {
            header,
            wide_only: false,
            keep: true,
        }
    }

    /// A column only `-o wide` shows.
    pub const fn wide(header: &'static str) -> Column {
        Column {
            header,
            wide_only: true,
            keep: false,
        }
    }
}

/// Columns that every table shows, from their headers.
pub fn columns<const N: usize>(headers: [&'static str; N]) -> [Column; N] {
    headers.map(Column::new)
}

/// The narrowest a column is cut to (or its header, when that is wider).
const MIN_COLUMN: usize = 8;
/// The width a column not kept is cut to before a kept one gives way.
const READABLE: usize = 16;
/// Hex digits of a digest kept when digests are shortened.
const DIGEST_KEPT: usize = 12;
/// Spaces between columns.
const GAP: usize = 2;

/// Render `rows` (each with a cell per column) under `columns` as aligned columns, fitted to
/// `width`. Each line ends without trailing spaces.
pub fn render<S: AsRef<str>>(columns: &[Column], rows: &[Vec<S>], width: Width) -> String {
    let all = columns;
    let shown: Vec<usize> = (0..columns.len())
        .filter(|&i| width == Width::Full || !columns[i].wide_only)
        .collect();
    let mut cells: Vec<Vec<String>> = Vec::with_capacity(rows.len() + 1);
    cells.push(
        shown
            .iter()
            .map(|&i| printable(columns[i].header).into_owned())
            .collect(),
    );
    cells.extend(rows.iter().map(|r| {
        shown
            .iter()
            .map(|&i| printable(r.get(i).map_or("", |c| c.as_ref())).into_owned())
            .collect()
    }));
    let columns = shown.len();
    let mut widths = natural_widths(&cells, columns);
    if let Width::Fit(max) = width
        && total(&widths) > max
    {
        for row in cells.iter_mut().skip(1) {
            for cell in row.iter_mut() {
                *cell = shorten_digests(cell);
            }
        }
        widths = natural_widths(&cells, columns);
        let floor: Vec<usize> = (0..columns)
            .map(|i| {
                cells[0]
                    .get(i)
                    .map_or(0, |h| h.chars().count())
                    .max(MIN_COLUMN)
                    .min(widths[i])
            })
            .collect();
        let keep: Vec<bool> = shown.iter().map(|&i| all[i].keep).collect();
        while total(&widths) > max {
            // First the widest column that is not kept, down to a readable width; then the
            // widest of all (not kept first), down to its floor.
            let Some(i) = (0..columns)
                .filter(|&i| !keep[i] && widths[i] > floor[i].max(READABLE))
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
                .or_else(|| {
                    (0..columns)
                        .filter(|&i| widths[i] > floor[i])
                        .max_by_key(|&i| (widths[i], !keep[i], std::cmp::Reverse(i)))
                })
            else {
                break;
            };
            widths[i] -= 1;
        }
        // A kept last column (a reason) wraps onto further lines rather than being cut.
        let wraps = columns > 0 && keep[columns - 1];
        for row in cells.iter_mut().skip(1) {
            for (i, (cell, &w)) in row.iter_mut().zip(&widths).enumerate() {
                if !(wraps && i + 1 == columns) {
                    *cell = elide(cell, w);
                }
            }
        }
    }
    let mut out = String::new();
    let indent = total(&widths[..columns.saturating_sub(1)]) + GAP;
    for row in &cells {
        let mut line = String::new();
        let mut more: Vec<String> = Vec::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str(&" ".repeat(GAP));
            }
            let mut cell = cell.as_str();
            let wrapped;
            if i + 1 == columns && cell.chars().count() > widths[i] {
                wrapped = textwrap::wrap(cell, widths[i].max(1));
                more = wrapped
                    .iter()
                    .skip(1)
                    .map(|l| elide(l, widths[i]))
                    .collect();
                cell = wrapped.first().map_or("", |l| l.as_ref());
            }
            line.push_str(cell);
            let pad = widths[i].saturating_sub(cell.chars().count());
            line.extend(std::iter::repeat_n(' ', pad));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        for l in more {
            out.push_str(&" ".repeat(indent));
            out.push_str(l.trim_end());
            out.push('\n');
        }
    }
    out
}

fn natural_widths(cells: &[Vec<String>], columns: usize) -> Vec<usize> {
    let mut widths = vec![0; columns];
    for row in cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    widths
}

fn total(widths: &[usize]) -> usize {
    widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1)
}

/// `cell` cut to `width` characters: its start and end around `…`.
pub fn elide(cell: &str, width: usize) -> String {
    let n = cell.chars().count();
    if n <= width {
        return cell.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let tail = (width - 1) / 2;
    let head = width - 1 - tail;
    let mut out: String = cell.chars().take(head).collect();
    out.push('…');
    out.extend(cell.chars().skip(n - tail));
    out
}

/// Every `sha256:` digest of 64 hex digits in `cell` cut to its first [`DIGEST_KEPT`] digits
/// and `…`, as `oc` and `crictl` show image IDs.
pub fn shorten_digests(cell: &str) -> String {
    const PREFIX: &str = "sha256:";
    let mut out = String::with_capacity(cell.len());
    let mut rest = cell;
    while let Some(i) = rest.find(PREFIX) {
        let after = &rest[i + PREFIX.len()..];
        let hex = after.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
        out.push_str(&rest[..i + PREFIX.len()]);
        if hex == 64 {
            out.push_str(&after[..DIGEST_KEPT]);
            out.push('…');
            rest = &after[64..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn max_line(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn a_table_that_fits_is_left_alone() {
        let out = render(
            &columns(["NAME", "VERSION"]),
            &[vec!["a", "1.0.0"]],
            Width::Fit(80),
        );
        assert_eq!(out, "NAME  VERSION\na     1.0.0\n");
    }

    #[test]
    fn digests_are_shortened_first_and_wide_keeps_them() {
        let image = format!("quay.io/acme/op@sha256:{}", "0123456789abcdef".repeat(4));
        let rows = vec![vec!["cert-operator".to_string(), image.clone()]];
        let fitted = render(&columns(["NAME", "IMAGE"]), &rows, Width::Fit(60));
        assert!(
            fitted.contains("quay.io/acme/op@sha256:0123456789ab…"),
            "{fitted}"
        );
        assert!(max_line(&fitted) <= 60, "{fitted}");
        let wide = render(&columns(["NAME", "IMAGE"]), &rows, Width::Full);
        assert!(wide.contains(&image), "{wide}");
    }

    #[test]
    fn the_widest_column_gives_way_and_keeps_both_ends() {
        let rows = vec![vec![
            "x".to_string(),
            "acme-cert-operator-with-a-very-long-name.v1.2.0".to_string(),
        ]];
        let out = render(&columns(["N", "BUNDLE"]), &rows, Width::Fit(30));
        assert!(max_line(&out) <= 30, "{out}");
        let line = out.lines().nth(1).unwrap();
        assert!(line.contains('…') && line.ends_with("v1.2.0"), "{out}");
    }

    #[test]
    fn control_characters_are_escaped() {
        let out = render(&columns(["NAME"]), &[vec!["a\u{1b}[31mred"]], Width::Full);
        assert!(!out.contains('\u{1b}'), "{out:?}");
    }

    #[test]
    fn kept_columns_give_way_last() {
        let cols = [Column::new("BUNDLE"), Column::keep("VERDICT")];
        let rows = vec![vec![
            "acme-cert-operator.v1.3.0-rc.1".to_string(),
            "not in channel stable".to_string(),
        ]];
        let out = render(&cols, &rows, Width::Fit(40));
        assert!(out.contains("not in channel stable"), "{out}");
        assert!(max_line(&out) <= 40, "{out}");
        // Narrower, the reason wraps under itself rather than being cut.
        let out = render(&cols, &rows, Width::Fit(28));
        assert!(max_line(&out) <= 28, "{out}");
        assert!(out.lines().count() > 2, "{out}");
        let words: Vec<&str> = out
            .lines()
            .skip(1)
            .flat_map(|l| l.split_whitespace())
            .collect();
        assert!(
            words.ends_with(&["not", "in", "channel", "stable"]),
            "{out}"
        );
    }

    #[test]
    fn wide_only_columns_show_only_when_wide() {
        let cols = [Column::new("NAME"), Column::wide("IMAGE")];
        let rows = vec![vec!["a", "quay.io/a:1"]];
        assert_eq!(render(&cols, &rows, Width::Fit(80)), "NAME\na\n");
        assert_eq!(
            render(&cols, &rows, Width::Full),
            "NAME  IMAGE\na     quay.io/a:1\n"
        );
    }

    #[test]
    fn shorten_digests_leaves_other_text() {
        assert_eq!(shorten_digests("sha256:abc"), "sha256:abc");
        assert_eq!(shorten_digests("no digest"), "no digest");
        let d = "f".repeat(64);
        assert_eq!(
            shorten_digests(&format!("a@sha256:{d} and sha256:{d}x")),
            "a@sha256:ffffffffffff… and sha256:ffffffffffff…x"
        );
    }

    proptest! {
        /// A fitted table is never wider than the width, unless its headers alone are; no cell
        /// is cut below its header's width.
        #[test]
        fn fitted_tables_fit(
            rows in prop::collection::vec(prop::collection::vec("[a-z0-9.é-]{0,60}", 4), 0..8),
            width in 20usize..200,
        ) {
            let header = ["NAME", "PACKAGE", "VERSION", "IMAGE"];
            let out = render(&columns(header), &rows, Width::Fit(width));
            let headers = header.iter().map(|h| h.len().max(MIN_COLUMN)).sum::<usize>() + GAP * 3;
            prop_assert!(max_line(&out) <= width.max(headers), "{}", out);
            prop_assert_eq!(out.lines().count(), rows.len() + 1);
            // A kept last column wraps: no line is wider, and every word is still there.
            let cols = [Column::new("NAME"), Column::keep("REASON")];
            let reasons: Vec<Vec<String>> = rows.iter().map(|r| vec![r[0].clone(), r[1..].join(" ")]).collect();
            let out = render(&cols, &reasons, Width::Fit(width));
            prop_assert!(max_line(&out) <= width.max(4 + 8 + GAP), "{}", out);
        }
    }
}
