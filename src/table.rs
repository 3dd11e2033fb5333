//! Text tables for a terminal: left-aligned columns two spaces apart, every cell escaped
//! ([`printable`]: cells come from catalogs and bundles), fitted to a width as kubectl fits
//! its own. Every text table po-manifests prints goes through [`render`].
//!
//! A cell is never cut: the names people copy out of a table (package, bundle, channel,
//! version, image) must stay whole. Fitting ([`Width::Fit`]) leaves out the columns marked
//! wide-only ([`Column::wide`]), as kubectl leaves out the columns `-o wide` adds, and the
//! columns marked [`Column::optional`] that no row has a value in; when the table is still
//! too wide, the columns marked redundant ([`Column::redundant_if`]); then it wraps the prose
//! columns ([`Column::prose`]: a reason, a display name) onto further lines, never below
//! their header or [`MIN_PROSE`]. A table of long names that still does not fit runs over
//! the width, as kubectl's does. [`Width::Full`] (`-o wide`) shows every column.
//! Machine-readable output (`-o json|yaml`) never goes through here.

use crate::text::printable;

/// How wide a table may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// At most this many characters a line (the terminal's width; 80 when not a terminal).
    Fit(usize),
    /// Every column (`-o wide`).
    Full,
}

/// What a column holds, which says how it gives way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Names and versions, copied by people and scripts: never cut or wrapped.
    Identifier,
    /// Words (a reason, a display name): wrapped onto further lines to fit.
    Prose,
}

/// A column: its header, what it holds, and when it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The header.
    pub header: &'static str,
    /// Shown only when the table is not fitted ([`Width::Full`]).
    pub wide_only: bool,
    /// What the column holds.
    pub kind: Kind,
    /// Left out of a fitted table when no row has a value in it (empty or `-`).
    pub optional: bool,
    /// Its values are shown elsewhere in the row (a version the bundle name holds) or are the
    /// same in every row (one catalog): left out of a fitted table that does not fit, widest
    /// first, before prose wraps.
    pub redundant: bool,
}

impl Column {
    /// A column of identifiers every table shows.
    pub const fn new(header: &'static str) -> Column {
        Column {
            header,
            wide_only: false,
            kind: Kind::Identifier,
            optional: false,
            redundant: false,
        }
    }

    /// A column of words, wrapped to fit.
    pub const fn prose(header: &'static str) -> Column {
        Column {
            kind: Kind::Prose,
            ..Column::new(header)
        }
    }

    /// A column only `-o wide` shows.
    pub const fn wide(header: &'static str) -> Column {
        Column {
            wide_only: true,
            ..Column::new(header)
        }
    }

    /// This column, left out of a fitted table when every cell is empty or `-`.
    pub const fn optional(self) -> Column {
        Column {
            optional: true,
            ..self
        }
    }

    /// This column, left out of a fitted table that does not fit when `redundant` (see
    /// [`Column::redundant`]; the caller knows when the values are shown elsewhere).
    pub const fn redundant_if(self, redundant: bool) -> Column {
        Column { redundant, ..self }
    }
}

/// Whether every row has the same value in cell `i` (a column that then says nothing a row
/// apart from the others).
pub fn uniform<S: AsRef<str>>(rows: &[Vec<S>], i: usize) -> bool {
    let mut values = rows.iter().map(|r| r.get(i).map_or("", |c| c.as_ref()));
    match values.next() {
        Some(first) => values.all(|v| v == first),
        None => true,
    }
}

/// Whether every row's cell `name` holds its cell `version` (a bundle name holds its version:
/// `acme-cert-operator.v1.2.0` and `1.2.0`), so a VERSION column repeats what BUNDLE says.
pub fn holds<S: AsRef<str>>(rows: &[Vec<S>], name: usize, version: usize) -> bool {
    rows.iter().all(|r| {
        let cell = |i: usize| r.get(i).map_or("", |c| c.as_ref());
        !cell(version).is_empty() && cell(name).contains(cell(version))
    })
}

/// Columns of identifiers that every table shows, from their headers.
pub fn columns<const N: usize>(headers: [&'static str; N]) -> [Column; N] {
    headers.map(Column::new)
}

/// The narrowest a prose column is wrapped to (or its header, when that is wider).
pub const MIN_PROSE: usize = 16;
/// Spaces between columns.
const GAP: usize = 2;

/// How prose is wrapped to `width`: at spaces only, never inside a word, so a name in a
/// sentence (`acme-cert-operator.v1.2.0`) stays whole on one line even when it runs over.
pub fn wrap_options(width: usize) -> textwrap::Options<'static> {
    textwrap::Options::new(width.max(1))
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// Whether a cell holds no value.
fn blank(cell: &str) -> bool {
    cell.is_empty() || cell == "-"
}

/// Render `rows` (each with a cell per column) under `columns` as aligned columns, fitted to
/// `width`, with a header line first. Each line ends without trailing spaces.
pub fn render<S: AsRef<str>>(columns: &[Column], rows: &[Vec<S>], width: Width) -> String {
    render_with(columns, rows, width, true)
}

/// [`render`], with or without the header line (`--no-headers`).
pub fn render_with<S: AsRef<str>>(
    columns: &[Column],
    rows: &[Vec<S>],
    width: Width,
    headers: bool,
) -> String {
    let cell = |r: &Vec<S>, i: usize| r.get(i).map_or("", |c| c.as_ref()).to_owned();
    let shown: Vec<usize> = (0..columns.len())
        .filter(|&i| match width {
            Width::Full => true,
            Width::Fit(_) => {
                let empty = columns[i].optional && rows.iter().all(|r| blank(&cell(r, i)));
                !(columns[i].wide_only || empty)
            }
        })
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
            .map(|&i| printable(&cell(r, i)).into_owned())
            .collect()
    }));
    let mut shown = shown;
    let mut widths = natural_widths(&cells, shown.len());
    // Too wide: the redundant columns go first, widest first.
    if let Width::Fit(max) = width {
        while total(&widths) > max {
            let Some(k) = (0..shown.len())
                .filter(|&k| columns[shown[k]].redundant)
                .max_by_key(|&k| (widths[k], k))
            else {
                break;
            };
            shown.remove(k);
            widths.remove(k);
            for row in &mut cells {
                row.remove(k);
            }
        }
    }
    let n = shown.len();
    if let Width::Fit(max) = width {
        let floor: Vec<usize> = (0..n)
            .map(|i| {
                let header = cells[0][i].chars().count();
                match columns[shown[i]].kind {
                    Kind::Prose => header.max(MIN_PROSE).min(widths[i]),
                    Kind::Identifier => widths[i],
                }
            })
            .collect();
        // The widest prose column gives way first, one character at a time.
        while total(&widths) > max {
            let Some(i) = (0..n)
                .filter(|&i| widths[i] > floor[i])
                .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break;
            };
            widths[i] -= 1;
        }
    }
    let mut out = String::new();
    for row in cells.iter().skip(usize::from(!headers)) {
        let lines: Vec<Vec<String>> = row
            .iter()
            .zip(&widths)
            .map(|(c, &w)| {
                if c.chars().count() <= w {
                    vec![c.clone()]
                } else {
                    // Only prose is ever narrower than its cells.
                    textwrap::wrap(c, wrap_options(w))
                        .into_iter()
                        .map(|l| l.into_owned())
                        .collect()
                }
            })
            .collect();
        let height = lines.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut line = String::new();
            for (i, cell_lines) in lines.iter().enumerate() {
                if i > 0 {
                    line.push_str(&" ".repeat(GAP));
                }
                let text = cell_lines.get(k).map_or("", String::as_str);
                line.push_str(text);
                let pad = widths[i].saturating_sub(text.chars().count());
                line.extend(std::iter::repeat_n(' ', pad));
            }
            out.push_str(line.trim_end());
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
    fn identifiers_run_over_rather_than_being_cut() {
        let image = format!("quay.io/acme/op@sha256:{}", "0123456789abcdef".repeat(4));
        let rows = vec![vec![
            "acme-cert-operator-with-a-very-long-name.v1.2.0".to_string(),
            image.clone(),
        ]];
        let out = render(&columns(["BUNDLE", "IMAGE"]), &rows, Width::Fit(30));
        assert!(out.contains(&image), "{out}");
        assert!(
            out.contains("acme-cert-operator-with-a-very-long-name.v1.2.0"),
            "{out}"
        );
        assert!(!out.contains('…'), "{out}");
        assert_eq!(out.lines().count(), 2, "{out}");
    }

    #[test]
    fn control_characters_are_escaped() {
        let out = render(&columns(["NAME"]), &[vec!["a\u{1b}[31mred"]], Width::Full);
        assert!(!out.contains('\u{1b}'), "{out:?}");
    }

    #[test]
    fn prose_wraps_under_itself() {
        let cols = [Column::new("BUNDLE"), Column::prose("VERDICT")];
        let rows = vec![vec![
            "acme-cert-operator.v1.3.0-rc.1".to_string(),
            "not in channel stable, and outside the range".to_string(),
        ]];
        let out = render(&cols, &rows, Width::Fit(50));
        assert!(max_line(&out) <= 50, "{out}");
        assert!(out.lines().count() > 2, "{out}");
        let words: Vec<&str> = out
            .lines()
            .skip(1)
            .flat_map(|l| l.split_whitespace())
            .collect();
        assert_eq!(
            words,
            [
                "acme-cert-operator.v1.3.0-rc.1",
                "not",
                "in",
                "channel",
                "stable,",
                "and",
                "outside",
                "the",
                "range"
            ],
            "{out}"
        );
        // A prose column in the middle wraps too, the next column staying in place.
        let cols = [
            Column::new("NAME"),
            Column::prose("DISPLAY NAME"),
            Column::new("DEFAULT CHANNEL"),
        ];
        let rows = vec![vec![
            "multicluster-global-hub-operator-rh",
            "Multicluster Global Hub Operator for Red Hat Advanced Cluster Management",
            "release-1.5",
        ]];
        let out = render(&cols, &rows, Width::Fit(80));
        assert!(max_line(&out) <= 80, "{out}");
        let first = out.lines().nth(1).unwrap();
        assert!(
            first.starts_with("multicluster-global-hub-operator-rh  Multicluster")
                && first.ends_with("release-1.5"),
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
    fn empty_optional_columns_are_left_out_of_fitted_tables() {
        let cols = [
            Column::new("BUNDLE"),
            Column::new("SKIPS").optional(),
            Column::new("DEPRECATED").optional(),
        ];
        let rows = vec![vec!["a.v1", "", "-"], vec!["a.v2", "a.v0", ""]];
        assert_eq!(
            render(&cols, &rows, Width::Fit(80)),
            "BUNDLE  SKIPS\na.v1\na.v2    a.v0\n"
        );
        assert!(render(&cols, &rows, Width::Full).starts_with("BUNDLE  SKIPS  DEPRECATED\n"));
        assert_eq!(
            render_with(&cols, &rows, Width::Fit(80), false),
            "a.v1\na.v2    a.v0\n"
        );
    }

    #[test]
    fn redundant_columns_go_only_when_the_table_does_not_fit() {
        let rows = vec![vec![
            "redhat-operators",
            "acme-cert-operator.v1.2.0",
            "1.2.0",
        ]];
        let cols = [
            Column::new("CATALOG").redundant_if(uniform(&rows, 0)),
            Column::new("BUNDLE"),
            Column::new("VERSION").redundant_if(holds(&rows, 1, 2)),
        ];
        let roomy = render(&cols, &rows, Width::Fit(80));
        assert!(roomy.starts_with("CATALOG  "), "{roomy}");
        let narrow = render(&cols, &rows, Width::Fit(40));
        assert_eq!(
            narrow,
            "BUNDLE                     VERSION\nacme-cert-operator.v1.2.0  1.2.0\n"
        );
        let narrower = render(&cols, &rows, Width::Fit(30));
        assert_eq!(narrower, "BUNDLE\nacme-cert-operator.v1.2.0\n");
        assert!(!holds(&[vec!["a.v2", "1.0.0"]], 0, 1));
        assert!(!uniform(&[vec!["a"], vec!["b"]], 0));
    }

    proptest! {
        /// No identifier is ever cut: every cell is on its row's line, whole; a table that is
        /// too wide runs over only by its identifiers, and prose wraps without losing a word.
        #[test]
        fn identifiers_stay_whole_and_prose_keeps_its_words(
            rows in prop::collection::vec(prop::collection::vec("[a-z0-9.é-]{1,60}", 4), 0..8),
            words in prop::collection::vec("[a-z]{1,12}", 0..20),
            width in 20usize..200,
        ) {
            let header = ["NAME", "PACKAGE", "VERSION", "IMAGE"];
            let out = render(&columns(header), &rows, Width::Fit(width));
            prop_assert_eq!(out.lines().count(), rows.len() + 1);
            for (row, line) in rows.iter().zip(out.lines().skip(1)) {
                let cells: Vec<&str> = line.split_whitespace().collect();
                prop_assert_eq!(&cells, &row.iter().map(String::as_str).collect::<Vec<_>>());
            }
            let cols = [Column::new("NAME"), Column::prose("REASON")];
            let reason = words.join(" ");
            let reasons: Vec<Vec<String>> = rows.iter().map(|r| vec![r[0].clone(), reason.clone()]).collect();
            let out = render(&cols, &reasons, Width::Fit(width));
            let name = reasons.iter().map(|r| r[0].chars().count()).max().unwrap_or(0).max(4);
            prop_assert!(max_line(&out) <= width.max(name + GAP + MIN_PROSE), "{}", out);
            let seen: Vec<&str> = out.lines().skip(1).flat_map(str::split_whitespace).collect();
            let expected: Vec<&str> = reasons.iter().flat_map(|r| std::iter::once(r[0].as_str()).chain(words.iter().map(String::as_str))).collect();
            prop_assert_eq!(seen, expected);
        }
    }
}
