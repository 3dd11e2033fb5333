//! The oc-mirror v2 `ImageSetConfiguration` (`mirror.openshift.io/v2alpha1`) that mirrors
//! exactly the resolved bundles.
//!
//! Per catalog image one `mirror.operators[]` entry; per package the channels that list the
//! resolved bundle (only the configured ones when the operator names channels), each with
//! `minVersion` = `maxVersion` = the resolved version. Semantics are oc-mirror v2's
//! (`reference/oc-mirror.md`, "v2 rules"):
//!
//! * The range is `>=v <=v` in Masterminds semver. A pre-release version such as `1.47.1-5`
//!   matches because the bound itself carries the pre-release. Build metadata is ignored, so
//!   `1.42.0-5` and `1.42.0-5+0.1687199951.p` select each other: oc-mirror mirrors both.
//! * The range follows the upgrade graph: when the bundle is reached only through another
//!   bundle's `skips`, oc-mirror also keeps the `replaces` chain node that skips it (with a
//!   warning). Either way the resolved bundle is included.
//! * Ranges are set on channels, never on the package as well (that is an error in v2).
//! * When the package's default channel is not among the kept channels, `defaultChannel` names
//!   the first kept one (otherwise oc-mirror refuses the package).
//! * Several operators of one package: each channel's range spans their versions.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::registry::{ImageRef, MirrorRule};

/// The API version written.
pub const API_VERSION: &str = "mirror.openshift.io/v2alpha1";

/// One resolved bundle to mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The catalog image oc-mirror reads (source registry).
    pub catalog: String,
    /// The package.
    pub package: String,
    /// The package's default channel in the catalog.
    pub default_channel: String,
    /// Channels to keep (non-empty).
    pub channels: Vec<String>,
    /// The resolved version, as written in the catalog.
    pub version: String,
    /// Parsed, for ordering.
    pub parsed: Option<semver::Version>,
}

/// The channels to mirror for a bundle: those that list it, restricted to the configured ones
/// when there are any.
pub fn channels_for(bundle_channels: &[String], configured: &[String]) -> Vec<String> {
    let mut out: Vec<String> = bundle_channels
        .iter()
        .filter(|c| configured.is_empty() || configured.contains(c))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Map a mirrored image back to its source through the rules (`mirror/x/a@d` with a rule
/// `src/a → mirror/x/a` gives `src/a@d`). `None` when no rule's mirror holds it.
pub fn source_of(image: &str, rules: &[MirrorRule]) -> Option<String> {
    let parsed = ImageRef::parse(image).ok()?;
    let repo = parsed.repository();
    let mut best: Option<(usize, String)> = None;
    for r in rules {
        for m in &r.mirrors {
            let m = m.trim_end_matches('/');
            let Ok(mp) = ImageRef::parse(m) else {
                continue;
            };
            let mrepo = if m.contains('/') {
                mp.repository()
            } else {
                m.to_string()
            };
            let rest = if repo == mrepo {
                Some("")
            } else {
                repo.strip_prefix(&format!("{mrepo}/"))
            };
            if let Some(rest) = rest
                && best.as_ref().is_none_or(|(len, _)| mrepo.len() > *len)
            {
                let mut src = r.source.clone();
                if !rest.is_empty() {
                    src.push('/');
                    src.push_str(rest);
                }
                if let Some(t) = &parsed.tag {
                    src.push(':');
                    src.push_str(t);
                }
                if let Some(d) = &parsed.digest {
                    src.push('@');
                    src.push_str(d);
                }
                best = Some((mrepo.len(), src));
            }
        }
    }
    best.map(|(_, s)| s)
}

/// The ImageSetConfiguration for these selections, deterministic (catalogs, packages and
/// channels sorted by name).
pub fn image_set(selections: &[Selection]) -> Value {
    // catalog → package → (default channel, channel → (min, max))
    type Range<'a> = (&'a Selection, &'a Selection);
    type Packages<'a> = BTreeMap<&'a str, (&'a str, BTreeMap<&'a str, Range<'a>>)>;
    let mut catalogs: BTreeMap<&str, Packages<'_>> = BTreeMap::new();
    for s in selections {
        let pkg = catalogs
            .entry(&s.catalog)
            .or_default()
            .entry(&s.package)
            .or_insert((&s.default_channel, BTreeMap::new()));
        for c in &s.channels {
            let entry = pkg.1.entry(c).or_insert((s, s));
            if order(s, entry.0).is_lt() {
                entry.0 = s;
            }
            if order(s, entry.1).is_gt() {
                entry.1 = s;
            }
        }
    }
    let operators: Vec<Value> = catalogs
        .into_iter()
        .map(|(catalog, packages)| {
            let packages: Vec<Value> = packages
                .into_iter()
                .map(|(name, (default, channels))| {
                    let mut p = serde_json::Map::new();
                    p.insert("name".into(), json!(name));
                    if !channels.contains_key(default)
                        && let Some(first) = channels.keys().next()
                    {
                        p.insert("defaultChannel".into(), json!(first));
                    }
                    p.insert(
                        "channels".into(),
                        Value::Array(
                            channels
                                .into_iter()
                                .map(|(c, (min, max))| {
                                    json!({
                                        "name": c,
                                        "minVersion": min.version,
                                        "maxVersion": max.version,
                                    })
                                })
                                .collect(),
                        ),
                    );
                    Value::Object(p)
                })
                .collect();
            json!({"catalog": catalog, "packages": packages})
        })
        .collect();
    json!({
        "kind": "ImageSetConfiguration",
        "apiVersion": API_VERSION,
        "mirror": {"operators": operators},
    })
}

/// Add `mirror.additionalImages` (oc-mirror v2alpha1 `Mirror.AdditionalImages []Image`, each
/// `{name}`): the bundle images the catalog gives by tag, by the digest `create` pins them to,
/// so that exactly that digest is mirrored even if the tag moves. Sorted, without repeats;
/// nothing is added for none.
pub fn add_additional_images(value: &mut Value, images: &[String]) {
    let mut images: Vec<&String> = images.iter().collect();
    images.sort();
    images.dedup();
    if images.is_empty() {
        return;
    }
    if let Some(mirror) = value.get_mut("mirror").and_then(Value::as_object_mut) {
        mirror.insert(
            "additionalImages".into(),
            Value::Array(images.into_iter().map(|i| json!({"name": i})).collect()),
        );
    }
}

fn order(a: &Selection, b: &Selection) -> std::cmp::Ordering {
    match (&a.parsed, &b.parsed) {
        (Some(x), Some(y)) => x.cmp_precedence(y).then_with(|| a.version.cmp(&b.version)),
        _ => a.version.cmp(&b.version),
    }
}
