//! Rows for `catalog list packages|channels|bundles PATH [--package P]`, like
//! operator-registry's `opm alpha list` (`alpha/action/list.go`), plus a plain column
//! renderer. Rows are sorted by package, channel, bundle.
//!
//! Text tables fit the terminal ([`crate::table`]): a list longer than [`MAX_LIST_CELL`]
//! becomes a count ("80 skips"), names are never cut, and `-o wide` shows every column and
//! cell whole. The JSON rows always hold the full values.

use serde::Serialize;

use super::graph;
use super::model::{Bundle, Catalog, Package};
use crate::table::{self, Column, Width};

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

/// Longest joined list (skips, heads) shown in full in a fitted text cell.
pub const MAX_LIST_CELL: usize = 40;

/// A list as a text cell: comma-joined when short or when the table is wide, else its count
/// ("3 skips").
fn list_cell(items: &[String], singular: &str, plural: &str, width: Width) -> String {
    let joined = items.join(",");
    if width == Width::Full || joined.chars().count() <= MAX_LIST_CELL {
        return joined;
    }
    let noun = if items.len() == 1 { singular } else { plural };
    format!("{} {noun}", items.len())
}

/// How a text table of rows is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// The width to fit.
    pub width: Width,
    /// Print the header line (not with `--no-headers`).
    pub headers: bool,
    /// Only one package was asked for (`--package`): its name in every row is left out.
    pub one_package: bool,
}

/// Text table of [`packages`]: the display name, words, wraps; it is left out when no package
/// has one.
pub fn packages_text(rows: &[PackageRow], options: TextOptions) -> String {
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
    table::render_with(
        &[
            Column::new("NAME"),
            Column::prose("DISPLAY NAME").optional(),
            Column::new("DEFAULT CHANNEL"),
        ],
        &cells,
        options.width,
        options.headers,
    )
}

/// Text table of [`channels`] (without PACKAGE for one package).
pub fn channels_text(rows: &[ChannelRow], options: TextOptions) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let heads = list_cell(&r.heads, "head", "heads", options.width);
            if options.one_package {
                vec![r.channel.clone(), heads]
            } else {
                vec![r.package.clone(), r.channel.clone(), heads]
            }
        })
        .collect();
    let columns: &[Column] = if options.one_package {
        &[Column::new("CHANNEL"), Column::new("HEAD")]
    } else {
        &[
            Column::new("PACKAGE"),
            Column::new("CHANNEL"),
            Column::new("HEAD"),
        ]
    };
    table::render_with(columns, &cells, options.width, options.headers)
}

/// Text table of [`bundles`]: skip range, image and maximum OpenShift version only with
/// `-o wide`; REPLACES, SKIPS and DEPRECATED only when some row has one; PACKAGE not for one
/// package.
pub fn bundles_text(rows: &[BundleRow], options: TextOptions) -> String {
    let width = options.width;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.package.clone(),
                r.channel.clone(),
                r.bundle.clone(),
                r.version.clone(),
                r.replaces.clone().unwrap_or_default(),
                list_cell(&r.skips, "skip", "skips", width),
                r.skip_range.clone().unwrap_or_default(),
                r.image.clone(),
                if r.deprecated { "deprecated" } else { "" }.to_owned(),
                r.max_openshift_version.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let columns = [
        Column::new("PACKAGE"),
        Column::new("CHANNEL"),
        Column::new("BUNDLE"),
        Column::new("VERSION").redundant_if(table::holds(&cells, 2, 3)),
        Column::new("REPLACES").optional(),
        Column::new("SKIPS").optional(),
        Column::wide("SKIP RANGE"),
        Column::wide("IMAGE"),
        Column::new("DEPRECATED").optional(),
        Column::wide("MAX OCP"),
    ];
    let skip = usize::from(options.one_package);
    let cells: Vec<Vec<String>> = cells.into_iter().map(|r| r[skip..].to_vec()).collect();
    table::render_with(&columns[skip..], &cells, width, options.headers)
}

/// `-o name` of packages: one package name a line.
pub fn package_names(catalog: &Catalog, package: Option<&str>) -> Vec<String> {
    selected(catalog, package).map(|p| p.name.clone()).collect()
}

/// `-o name` of channels: `PACKAGE/CHANNEL` a line.
pub fn channel_names(catalog: &Catalog, package: Option<&str>) -> Vec<String> {
    channels(catalog, package)
        .into_iter()
        .map(|c| format!("{}/{}", c.package, c.channel))
        .collect()
}

/// `-o name` of bundles: each bundle name once (a bundle in several channels too), in row
/// order.
pub fn bundle_names(catalog: &Catalog, package: Option<&str>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    bundles(catalog, package)
        .into_iter()
        .filter(|b| seen.insert((b.package.clone(), b.bundle.clone())))
        .map(|b| b.bundle)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::validate::tests::{bundle_with, chan, pkg, pkg_prop, valid};
    use crate::catalog::{PackageFilter, load};

    const FIT: TextOptions = TextOptions {
        width: Width::Fit(80),
        headers: true,
        one_package: false,
    };

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
            packages_text(&p, FIT),
            "NAME  DISPLAY NAME  DEFAULT CHANNEL\na     Aye           stable\nb                   s\n"
        );
        let c = channels(&cat, Some("b"));
        assert_eq!(c[0].heads, ["b.v1", "b.v2"]);
        assert_eq!(
            channels_text(&c, FIT),
            "PACKAGE  CHANNEL  HEAD\nb        s        b.v1,b.v2\n"
        );
        // One package asked for: no PACKAGE column; --no-headers: no header line.
        let one = TextOptions {
            one_package: true,
            headers: false,
            ..FIT
        };
        assert_eq!(channels_text(&c, one), "s        b.v1,b.v2\n");
        assert_eq!(channel_names(&cat, None), ["a/stable", "b/s"]);
        assert_eq!(bundle_names(&cat, Some("b")), ["b.v1", "b.v2"]);
        assert_eq!(package_names(&cat, None), ["a", "b"]);
        let b = bundles(&cat, Some("a"));
        assert_eq!(b.len(), 2);
        assert!(b[0].deprecated);
        assert_eq!(b[1].max_openshift_version.as_deref(), Some("4.10"));
        assert_eq!(b[1].replaces.as_deref(), Some("a.v1"));
        let text = bundles_text(&b, FIT);
        assert!(
            text.lines().nth(1).unwrap().contains("deprecated"),
            "{text}"
        );
        // No skips in any row: no SKIPS column.
        assert!(!text.contains("SKIPS"), "{text}");
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
            let fit = Width::Fit(80);
            assert_eq!(
                list_cell(&names(2), "skip", "skips", fit),
                "op.v1.0.0,op.v1.0.1"
            );
            assert_eq!(list_cell(&[], "skip", "skips", fit), "");
        }

        #[test]
        fn long_lists_become_a_count() {
            let fit = Width::Fit(80);
            assert_eq!(list_cell(&names(80), "skip", "skips", fit), "80 skips");
            let one = vec!["x".repeat(60)];
            assert_eq!(list_cell(&one, "skip", "skips", fit), "1 skip");
            assert_eq!(
                list_cell(&names(80), "skip", "skips", Width::Full),
                names(80).join(",")
            );
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
            let fit = TextOptions {
                width: Width::Fit(80),
                headers: true,
                one_package: false,
            };
            let text = bundles_text(std::slice::from_ref(&row), fit);
            assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
            assert!(text.contains("80 skips"), "{text}");
            let wide = bundles_text(
                std::slice::from_ref(&row),
                TextOptions {
                    width: Width::Full,
                    ..fit
                },
            );
            assert!(
                wide.contains(&names(80).join(",")) && wide.contains(&row.image),
                "{wide}"
            );
            let json = serde_json::to_value([&row]).unwrap();
            assert_eq!(json[0]["skips"].as_array().unwrap().len(), 80);
        }
    }
}
