//! Rows for `catalog list packages|channels|bundles PATH [--package P]`, like
//! operator-registry's `opm alpha list` (`alpha/action/list.go`), plus a plain column
//! renderer. Rows are sorted by package, channel, bundle.
//!
//! Text cells are elided to fit a terminal (a bundle that skips 80 versions would make every
//! row thousands of characters wide): lists longer than [`MAX_LIST_CELL`] become a count
//! ("80 skips"), any other cell longer than [`MAX_CELL`] keeps its start and end around `…`.
//! The JSON rows always hold the full values.

use serde::Serialize;

use super::graph;
use super::model::{Bundle, Catalog, Package};

/// One package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageRow {
    /// Package name.
    pub name: String,
    /// `displayName` of the default channel head's CSV, if any.
    pub display_name: Option<String>,
    /// Default channel.
    pub default_channel: String,
}

/// One channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelRow {
    /// Package name.
    pub package: String,
    /// Channel name.
    pub channel: String,
    /// Head(s), sorted; more than one in a multi-head channel.
    pub heads: Vec<String>,
}

/// One bundle in one channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleRow {
    /// Package name.
    pub package: String,
    /// Channel name.
    pub channel: String,
    /// Bundle name.
    pub bundle: String,
    /// Version text.
    pub version: String,
    /// Replaced bundle.
    pub replaces: Option<String>,
    /// Skipped bundles.
    pub skips: Vec<String>,
    /// skipRange as written.
    pub skip_range: Option<String>,
    /// Bundle image.
    pub image: String,
    /// Whether the bundle, its channel or its package is deprecated.
    pub deprecated: bool,
    /// Raw `olm.maxOpenShiftVersion` (unquoted string or number text), if readable.
    #[serde(rename = "maxOpenShiftVersion")]
    pub max_openshift_version: Option<String>,
}

fn selected<'a>(
    catalog: &'a Catalog,
    package: Option<&'a str>,
) -> impl Iterator<Item = &'a Package> {
    catalog
        .packages
        .iter()
        .filter(move |p| package.is_none_or(|n| p.name == n))
}

fn display_name(pkg: &Package) -> Option<String> {
    let ch = pkg.channel(&pkg.default_channel)?;
    let hs = graph::heads(ch);
    let head: &Bundle = pkg.bundle(hs.first()?)?;
    let from_meta = head
        .csv_metadata()
        .and_then(|m| m.get("displayName")?.as_str().map(str::to_owned));
    from_meta.or_else(|| {
        head.csv_object()?
            .pointer("/spec/displayName")?
            .as_str()
            .map(str::to_owned)
    })
}

/// Package rows (optionally one package only).
pub fn packages(catalog: &Catalog, package: Option<&str>) -> Vec<PackageRow> {
    selected(catalog, package)
        .map(|p| PackageRow {
            name: p.name.clone(),
            display_name: display_name(p).filter(|d| !d.is_empty()),
            default_channel: p.default_channel.clone(),
        })
        .collect()
}

/// Channel rows.
pub fn channels(catalog: &Catalog, package: Option<&str>) -> Vec<ChannelRow> {
    selected(catalog, package)
        .flat_map(|p| {
            p.channels.iter().map(move |c| ChannelRow {
                package: p.name.clone(),
                channel: c.name.clone(),
                heads: graph::heads(c).into_iter().map(str::to_owned).collect(),
            })
        })
        .collect()
}

/// Bundle rows: one per channel entry that has a bundle.
pub fn bundles(catalog: &Catalog, package: Option<&str>) -> Vec<BundleRow> {
    let mut rows = Vec::new();
    for p in selected(catalog, package) {
        for c in &p.channels {
            let mut entries: Vec<_> = c.entries.iter().collect();
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            for e in entries {
                let Some(b) = p.bundle(&e.name) else { continue };
                rows.push(BundleRow {
                    package: p.name.clone(),
                    channel: c.name.clone(),
                    bundle: b.name.clone(),
                    version: b.version_text.clone(),
                    replaces: e.replaces.clone(),
                    skips: e.skips.clone(),
                    skip_range: e.skip_range.clone(),
                    image: b.image.clone(),
                    deprecated: b.deprecation.is_some()
                        || c.deprecation.is_some()
                        || p.deprecation.is_some(),
                    max_openshift_version: b
                        .max_openshift_version_raw()
                        .and_then(|r| r.ok())
                        .map(str::to_owned),
                });
            }
        }
    }
    rows
}

/// Longest joined list (skips, heads) shown in full in a text cell.
pub const MAX_LIST_CELL: usize = 40;
/// Longest text cell (in characters) shown in full.
pub const MAX_CELL: usize = 72;

/// A list as a text cell: comma-joined when short, else its count ("3 skips").
fn list_cell(items: &[String], singular: &str, plural: &str) -> String {
    let joined = items.join(",");
    if joined.chars().count() <= MAX_LIST_CELL {
        return joined;
    }
    let noun = if items.len() == 1 { singular } else { plural };
    elide(&format!("{} {noun}", items.len()))
}

/// A cell cut to [`MAX_CELL`] characters: its start and end around `…`.
fn elide(cell: &str) -> String {
    let n = cell.chars().count();
    if n <= MAX_CELL {
        return cell.to_owned();
    }
    let head = (MAX_CELL - 1) / 2;
    let tail = MAX_CELL - 1 - head;
    let mut out: String = cell.chars().take(head).collect();
    out.push('…');
    out.extend(cell.chars().skip(n - tail));
    out
}

/// Render rows as left-aligned columns separated by two spaces, with a header line. Cells come
/// from catalogs: control characters (terminal escapes, newlines) are printed escaped.
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| crate::text::printable(c).into_owned())
                .collect()
        })
        .collect();
    let rows = &rows[..];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            s.push_str(cell);
            let pad = widths[i].saturating_sub(cell.chars().count());
            s.extend(std::iter::repeat_n(' ', pad));
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for r in rows {
        line(&mut r.iter().map(String::as_str));
    }
    out
}

/// [`render_table`] with every cell elided to [`MAX_CELL`] characters.
fn render_elided(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| r.iter().map(|c| elide(c)).collect())
        .collect();
    render_table(header, &rows)
}

/// Text table of [`packages`].
pub fn packages_text(rows: &[PackageRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.display_name.clone().unwrap_or_default(),
                r.default_channel.clone(),
            ]
        })
        .collect();
    render_elided(&["NAME", "DISPLAY NAME", "DEFAULT CHANNEL"], cells)
}

/// Text table of [`channels`].
pub fn channels_text(rows: &[ChannelRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.package.clone(),
                r.channel.clone(),
                list_cell(&r.heads, "head", "heads"),
            ]
        })
        .collect();
    render_elided(&["PACKAGE", "CHANNEL", "HEAD"], cells)
}

/// Text table of [`bundles`].
pub fn bundles_text(rows: &[BundleRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.package.clone(),
                r.channel.clone(),
                r.bundle.clone(),
                r.version.clone(),
                r.replaces.clone().unwrap_or_default(),
                list_cell(&r.skips, "skip", "skips"),
                r.skip_range.clone().unwrap_or_default(),
                r.image.clone(),
                if r.deprecated { "deprecated" } else { "" }.to_owned(),
                r.max_openshift_version.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render_elided(
        &[
            "PACKAGE",
            "CHANNEL",
            "BUNDLE",
            "VERSION",
            "REPLACES",
            "SKIPS",
            "SKIP RANGE",
            "IMAGE",
            "DEPRECATED",
            "MAX OCP",
        ],
        cells,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::validate::tests::{bundle_with, chan, pkg, pkg_prop, valid};
    use crate::catalog::{PackageFilter, load};

    fn catalog(lines: &[String]) -> Catalog {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.json"), lines.join("\n")).unwrap();
        load(dir.path(), &PackageFilter::All).unwrap()
    }

    #[test]
    fn rows_and_text() {
        let mut l = valid();
        let props = format!(
            r#"{},{{"type":"olm.maxOpenShiftVersion","value":4.10}},{{"type":"olm.csv.metadata","value":{{"displayName":"Aye"}}}}"#,
            pkg_prop("a", "2.0.0", "")
        );
        l[3] = bundle_with("a", "a.v2", "quay.io/x/a:2", &props, "");
        l.push(r#"{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"old"}]}"#.into());
        l.push(pkg("b", "s"));
        l.push(chan("b", "s", r#"[{"name":"b.v1"},{"name":"b.v2"}]"#));
        l.push(bundle_with(
            "b",
            "b.v1",
            "quay.io/x/b:1",
            &pkg_prop("b", "1.0.0", ""),
            "",
        ));
        l.push(bundle_with(
            "b",
            "b.v2",
            "quay.io/x/b:2",
            &pkg_prop("b", "2.0.0", ""),
            "",
        ));
        let cat = catalog(&l);

        let p = packages(&cat, None);
        assert_eq!(p[0].display_name.as_deref(), Some("Aye"));
        assert_eq!(
            packages_text(&p),
            "NAME  DISPLAY NAME  DEFAULT CHANNEL\na     Aye           stable\nb                   s\n"
        );
        let c = channels(&cat, Some("b"));
        assert_eq!(c[0].heads, ["b.v1", "b.v2"]);
        assert_eq!(
            channels_text(&c),
            "PACKAGE  CHANNEL  HEAD\nb        s        b.v1,b.v2\n"
        );
        let b = bundles(&cat, Some("a"));
        assert_eq!(b.len(), 2);
        assert!(b[0].deprecated);
        assert_eq!(b[1].max_openshift_version.as_deref(), Some("4.10"));
        assert_eq!(b[1].replaces.as_deref(), Some("a.v1"));
        let text = bundles_text(&b);
        assert!(
            text.lines().nth(1).unwrap().contains("deprecated"),
            "{text}"
        );
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json[1]["maxOpenShiftVersion"], "4.10");
        assert_eq!(json[1]["skipRange"], serde_json::Value::Null);
        assert!(json[1].get("skip_range").is_none());
    }

    mod elision {
        use super::super::*;

        fn names(n: usize) -> Vec<String> {
            (0..n).map(|i| format!("op.v1.0.{i}")).collect()
        }

        #[test]
        fn short_lists_are_joined() {
            assert_eq!(list_cell(&names(2), "skip", "skips"), "op.v1.0.0,op.v1.0.1");
            assert_eq!(list_cell(&[], "skip", "skips"), "");
        }

        #[test]
        fn long_lists_become_a_count() {
            assert_eq!(list_cell(&names(80), "skip", "skips"), "80 skips");
            let one = vec!["x".repeat(60)];
            assert_eq!(list_cell(&one, "skip", "skips"), "1 skip");
        }

        #[test]
        fn long_cells_keep_start_and_end() {
            let cell = format!("quay.io/{}@sha256:{}", "r".repeat(40), "d".repeat(64));
            let e = elide(&cell);
            assert_eq!(e.chars().count(), MAX_CELL);
            assert!(e.starts_with("quay.io/r") && e.ends_with("ddd") && e.contains('…'));
            assert_eq!(elide("short"), "short");
            // Multi-byte characters are cut on character boundaries.
            assert_eq!(elide(&"é".repeat(100)).chars().count(), MAX_CELL);
        }

        #[test]
        fn rows_stay_narrow_and_json_keeps_everything() {
            let row = BundleRow {
                package: "p".into(),
                channel: "stable".into(),
                bundle: "p.v2".into(),
                version: "2.0.0".into(),
                replaces: None,
                skips: names(80),
                skip_range: None,
                image: format!("quay.io/x/p@sha256:{}", "a".repeat(64)),
                deprecated: false,
                max_openshift_version: None,
            };
            let text = bundles_text(std::slice::from_ref(&row));
            assert!(text.lines().all(|l| l.chars().count() < 200), "{text}");
            assert!(text.contains("80 skips"), "{text}");
            let json = serde_json::to_value([&row]).unwrap();
            assert_eq!(json[0]["skips"].as_array().unwrap().len(), 80);
        }
    }
}
