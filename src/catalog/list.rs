//! Rows for `catalog list packages|channels|bundles PATH [--package P]`, like
//! operator-registry's `opm alpha list` (`alpha/action/list.go`), plus a plain column
//! renderer. Rows are sorted by package, channel, bundle.

use serde::Serialize;

use super::graph;
use super::model::{Bundle, Catalog, Package};

/// One package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    pub max_openshift_version: Option<String>,
}

fn selected<'a>(catalog: &'a Catalog, package: Option<&'a str>) -> impl Iterator<Item = &'a Package> {
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

/// Render rows as left-aligned columns separated by two spaces, with a header line.
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
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
    render_table(&["NAME", "DISPLAY NAME", "DEFAULT CHANNEL"], &cells)
}

/// Text table of [`channels`].
pub fn channels_text(rows: &[ChannelRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r.package.clone(), r.channel.clone(), r.heads.join(",")])
        .collect();
    render_table(&["PACKAGE", "CHANNEL", "HEAD"], &cells)
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
                r.skips.join(","),
                r.skip_range.clone().unwrap_or_default(),
                r.image.clone(),
                if r.deprecated { "deprecated" } else { "" }.to_owned(),
                r.max_openshift_version.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render_table(
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
        &cells,
    )
}
