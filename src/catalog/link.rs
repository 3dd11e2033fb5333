//! Linking: the file's typed blobs ([`fbc::DeclarativeConfig`]) become the model's
//! [`Catalog`], as operator-registry's `ConvertToModel` (`alpha/declcfg/declcfg_to_model.go`)
//! does, except that every linking problem (rules 1–12 of §1.3) is collected instead of the
//! first stopping the build. Reads the file format, the model, the properties and the problem
//! type; the model knows nothing of it.

use std::collections::{BTreeMap, HashMap};

use base64::Engine as _;
use rayon::prelude::*;
use serde_json::value::RawValue;

use super::fbc;
use super::image;
use super::model::{
    Bundle, BundleObjectError, Catalog, Channel, ChannelEntry, Origin, Package, Property,
    RelatedImage, check_release, is_standard_base64, parse_version, read_lazy_value,
};
use super::problem::{Problem, ProblemKind, sort_problems};
use super::property::{self, PropertyValue};

/// Packages keyed by name, used while building.
pub type PackageMap = BTreeMap<String, Package>;

/// [`decode_bundle_object`]'s verdict without decoding: the value is read without copying
/// `data` (when it has no escapes), and `data` is checked with [`is_standard_base64`]; only
/// a failure runs the real decoder, for its error.
fn check_bundle_object(value: &RawValue) -> Result<(), BundleObjectError> {
    let obj: fbc::BundleObjectRef<'_> =
        serde_json::from_str(value.get()).map_err(BundleObjectError::Shape)?;
    if obj.data.is_empty() {
        if !obj.reference.is_empty() {
            return Err(BundleObjectError::RefUnsupported {
                reference: obj.reference.into_owned(),
            });
        }
        return Err(BundleObjectError::Empty);
    }
    if is_standard_base64(obj.data.as_bytes()) {
        return Ok(());
    }
    base64::engine::general_purpose::STANDARD
        .decode(obj.data.as_bytes())
        .map(|_| ())
        .map_err(BundleObjectError::Base64)
}

/// Options for [`build`].
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Also base64-decode every `olm.bundle.object` to check it (as opm's property parsing
    /// does). Costs a pass over the embedded manifests; [`super::validate`] turns it on.
    pub check_bundle_objects: bool,
}

/// Known property types that must decode into their struct (rule 5).
fn check_property(
    p: &fbc::Property,
    file: &std::path::Path,
    opts: &BuildOptions,
) -> Result<(), String> {
    fn shape<T: for<'a> serde::Deserialize<'a>>(v: &PropertyValue) -> Result<(), String> {
        serde_json::from_str::<T>(v.text().unwrap_or("null"))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    match p.ty.as_str() {
        property::PROPERTY_PACKAGE => shape::<property::PackageProperty>(&p.value),
        property::PROPERTY_PACKAGE_REQUIRED => shape::<property::PackageRequired>(&p.value),
        property::PROPERTY_GVK | property::PROPERTY_GVK_REQUIRED => {
            shape::<property::Gvk>(&p.value)
        }
        property::PROPERTY_CHANNEL => shape::<property::ChannelProperty>(&p.value),
        property::PROPERTY_CSV_METADATA => match &p.value {
            // Checked when it was read, by the same function.
            PropertyValue::Checked(outcome) => outcome.clone(),
            v => property::check_csv_metadata(v.text().unwrap_or("null")),
        },
        property::PROPERTY_BUNDLE_OBJECT if opts.check_bundle_objects => {
            match &p.value {
                PropertyValue::Json(raw) => check_bundle_object(raw),
                PropertyValue::Checked(outcome) => return outcome.clone(),
                // Checked when it was read.
                PropertyValue::InFile(place) if place.base64_ok => Ok(()),
                // Read it back for the decoder's own error.
                PropertyValue::InFile(place) => {
                    read_lazy_value(file, *place).and_then(|v| check_bundle_object(&v))
                }
            }
            .map_err(|e| e.to_string())
        }
        // A value left in its file had this shape when it was read.
        property::PROPERTY_BUNDLE_OBJECT if p.value.in_file().is_some() => Ok(()),
        property::PROPERTY_BUNDLE_OBJECT => shape::<property::BundleObject>(&p.value),
        _ => Ok(()),
    }
}

/// Link typed blobs into a [`Catalog`], collecting every problem `opm`'s `ConvertToModel`
/// stops on (rules 1–12 of §1.3, except a `defaultChannel` naming a missing channel, which
/// upstream reports in model validation). Objects with problems are kept where possible (a
/// bundle with a bad version gets `version: None`); objects that cannot be placed (unknown
/// package, duplicates) are dropped.
pub fn build(dc: fbc::DeclarativeConfig, opts: &BuildOptions) -> (Catalog, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut packages: PackageMap = BTreeMap::new();

    for fbc::Located { item: p, origin } in dc.packages {
        if !crate::text::is_dns1123_label(&p.name) {
            problems.push(
                Problem::error(ProblemKind::PackageNameInvalid {
                    name: p.name.clone(),
                })
                .package(&p.name)
                .at(&origin),
            );
            if p.name.is_empty() {
                continue;
            }
        }
        if let Some(first) = packages.get(&p.name) {
            problems.push(
                Problem::error(ProblemKind::DuplicatePackage {
                    first: first.origin.clone(),
                })
                .package(&p.name)
                .at(&origin),
            );
            continue;
        }
        if p.default_channel.is_empty() {
            problems.push(
                Problem::error(ProblemKind::DefaultChannelEmpty)
                    .package(&p.name)
                    .at(&origin),
            );
        }
        packages.insert(
            p.name.clone(),
            Package {
                name: p.name,
                default_channel: p.default_channel,
                description: Some(p.description).filter(|d| !d.is_empty()),
                channels: Vec::new(),
                bundles: Vec::new(),
                deprecation: None,
                origin,
            },
        );
    }

    // Where each (package, channel) was first declared: a lookup, not a scan of the package's
    // channels, so a package of many channels costs linear time (issue 26 item 9).
    let mut channel_origins: HashMap<(String, String), Origin> = HashMap::new();
    for fbc::Located { item: c, origin } in dc.channels {
        if c.package.is_empty() {
            problems.push(
                Problem::error(ProblemKind::ChannelPackageEmpty)
                    .channel(&c.name)
                    .at(&origin),
            );
            continue;
        }
        let Some(pkg) = packages.get_mut(&c.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_CHANNEL,
                })
                .package(&c.package)
                .channel(&c.name)
                .at(&origin),
            );
            continue;
        };
        if c.name.is_empty() {
            problems.push(
                Problem::error(ProblemKind::ChannelNameEmpty)
                    .package(&c.package)
                    .at(&origin),
            );
            continue;
        }
        let key = (c.package.clone(), c.name.clone());
        if let Some(first) = channel_origins.get(&key) {
            problems.push(
                Problem::error(ProblemKind::DuplicateChannel {
                    first: first.clone(),
                })
                .package(&c.package)
                .channel(&c.name)
                .at(&origin),
            );
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        let mut entries = Vec::with_capacity(c.entries.len());
        for e in c.entries {
            if !seen.insert(e.name.clone()) {
                problems.push(
                    Problem::error(ProblemKind::DuplicateEntry {
                        entry: e.name.clone(),
                    })
                    .package(&c.package)
                    .channel(&c.name)
                    .at(&origin),
                );
                continue;
            }
            entries.push(ChannelEntry {
                name: e.name,
                replaces: Some(e.replaces).filter(|r| !r.is_empty()),
                skips: e.skips,
                skip_range: Some(e.skip_range).filter(|r| !r.is_empty()),
            });
        }
        channel_origins.insert(key, origin.clone());
        pkg.channels.push(Channel {
            name: c.name,
            entries,
            deprecation: None,
            origin,
        });
    }

    // Rule 5 (properties parse) is the costly one (it base64-decodes every embedded object
    // when asked to): run it on every core first, report it in order below.
    let property_problems: Vec<Vec<(usize, String)>> = dc
        .bundles
        .par_iter()
        .map(|b| {
            b.item
                .properties
                .iter()
                .enumerate()
                .filter_map(|(index, p)| {
                    check_property(p, &b.origin.file, opts)
                        .err()
                        .map(|r| (index, r))
                })
                .collect()
        })
        .collect();
    let mut bundle_origins: HashMap<(String, String), Origin> = HashMap::new();
    for (fbc::Located { item: b, origin }, property_problems) in
        dc.bundles.into_iter().zip(property_problems)
    {
        if b.package.is_empty() {
            problems.push(
                Problem::error(ProblemKind::BundlePackageEmpty)
                    .bundle(&b.name)
                    .at(&origin),
            );
            continue;
        }
        let Some(pkg) = packages.get_mut(&b.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_BUNDLE,
                })
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin),
            );
            continue;
        };
        let key = (b.package.clone(), b.name.clone());
        if let Some(first) = bundle_origins.get(&key) {
            problems.push(
                Problem::error(ProblemKind::DuplicateBundle {
                    first: first.clone(),
                })
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin),
            );
            continue;
        }
        bundle_origins.insert(key, origin.clone());
        let here = |kind| {
            Problem::error(kind)
                .package(&b.package)
                .bundle(&b.name)
                .at(&origin)
        };
        // Rule 5: properties parse.
        for (index, reason) in property_problems {
            problems.push(here(ProblemKind::PropertyInvalid {
                index,
                ty: b.properties[index].ty.clone(),
                reason,
            }));
        }
        // Rule 6: exactly one olm.package property naming this package.
        let pkg_props: Vec<property::PackageProperty> = b
            .properties
            .iter()
            .filter(|p| p.ty == property::PROPERTY_PACKAGE)
            .filter_map(|p| p.value.text().and_then(|t| serde_json::from_str(t).ok()))
            .collect();
        let (version_text, release) = match pkg_props.as_slice() {
            [one] => {
                if one.package_name != b.package {
                    problems.push(here(ProblemKind::PackagePropertyMismatch {
                        found: one.package_name.clone(),
                    }));
                }
                (
                    one.version.clone(),
                    Some(one.release.clone()).filter(|r| !r.is_empty()),
                )
            }
            many => {
                problems.push(here(ProblemKind::PackagePropertyCount {
                    count: many.len(),
                }));
                (
                    many.first().map(|p| p.version.clone()).unwrap_or_default(),
                    None,
                )
            }
        };
        // Rule 7: image references.
        if !b.image.is_empty()
            && let Err(e) = image::check_reference(&b.image)
        {
            problems.push(here(ProblemKind::InvalidImage {
                image: b.image.clone(),
                reason: e.to_string(),
            }));
        }
        for ri in &b.related_images {
            if !ri.image.is_empty()
                && let Err(e) = image::check_reference(&ri.image)
            {
                problems.push(here(ProblemKind::InvalidImage {
                    image: ri.image.clone(),
                    reason: e.to_string(),
                }));
            }
        }
        // Rule 8: strict version, valid release.
        let version = if pkg_props.len() == 1 {
            match parse_version(&version_text) {
                Ok(v) => Some(v),
                Err(reason) => {
                    problems.push(here(ProblemKind::InvalidVersion {
                        version: version_text.clone(),
                        reason,
                    }));
                    None
                }
            }
        } else {
            parse_version(&version_text).ok()
        };
        if let Some(r) = &release
            && let Err(reason) = check_release(r)
        {
            problems.push(here(ProblemKind::InvalidRelease {
                release: r.clone(),
                reason,
            }));
        }
        pkg.bundles.push(Bundle {
            name: b.name,
            package: b.package,
            image: b.image,
            version_text,
            version,
            release,
            properties: b
                .properties
                .into_iter()
                .map(|p| Property {
                    ty: p.ty,
                    value: p.value,
                })
                .collect(),
            related_images: b
                .related_images
                .into_iter()
                .map(|r| RelatedImage {
                    name: r.name,
                    image: r.image,
                })
                .collect(),
            channels: Vec::new(),
            deprecation: None,
            origin,
        });
    }

    // Rules 9 and 10: bundles and channel entries meet.
    for pkg in packages.values_mut() {
        pkg.channels.sort_by(|a, b| a.name.cmp(&b.name));
        pkg.bundles.sort_by(|a, b| a.name.cmp(&b.name));
        for ch in &pkg.channels {
            for e in &ch.entries {
                match pkg
                    .bundles
                    .binary_search_by(|b| b.name.as_str().cmp(&e.name))
                {
                    Ok(i) => pkg.bundles[i].channels.push(ch.name.clone()),
                    Err(_) => problems.push(
                        Problem::error(ProblemKind::EntryWithoutBundle {
                            entry: e.name.clone(),
                        })
                        .package(&pkg.name)
                        .channel(&ch.name)
                        .at(&ch.origin),
                    ),
                }
            }
        }
        for b in &mut pkg.bundles {
            b.channels.sort();
            if b.channels.is_empty() {
                problems.push(
                    Problem::error(ProblemKind::BundleNotInChannel)
                        .package(&pkg.name)
                        .bundle(&b.name)
                        .at(&b.origin),
                );
            }
        }
    }

    // Rule 12: deprecations.
    let mut deprecation_seen: HashMap<String, Origin> = HashMap::new();
    for fbc::Located { item: d, origin } in dc.deprecations {
        if d.package.is_empty() {
            problems.push(Problem::error(ProblemKind::DeprecationPackageEmpty).at(&origin));
            continue;
        }
        let Some(pkg) = packages.get_mut(&d.package) else {
            problems.push(
                Problem::error(ProblemKind::UnknownPackage {
                    schema: fbc::SCHEMA_DEPRECATIONS,
                })
                .package(&d.package)
                .at(&origin),
            );
            continue;
        };
        if let Some(first) = deprecation_seen.get(&d.package) {
            problems.push(
                Problem::error(ProblemKind::DuplicateDeprecations {
                    first: first.clone(),
                })
                .package(&d.package)
                .at(&origin),
            );
            continue;
        }
        deprecation_seen.insert(d.package.clone(), origin.clone());
        let mut refs = std::collections::HashSet::new();
        for (index, e) in d.entries.into_iter().enumerate() {
            let r = &e.reference;
            let here = |kind| Problem::error(kind).package(&d.package).at(&origin);
            if r.schema.is_empty() {
                problems.push(here(ProblemKind::DeprecationSchemaEmpty { index }));
                continue;
            }
            if !refs.insert((r.schema.clone(), r.name.clone())) {
                problems.push(here(ProblemKind::DeprecationDuplicateEntry {
                    schema: r.schema.clone(),
                    name: r.name.clone(),
                }));
                continue;
            }
            let unknown = || ProblemKind::DeprecationUnknownReference {
                schema: r.schema.clone(),
                name: r.name.clone(),
            };
            match r.schema.as_str() {
                fbc::SCHEMA_PACKAGE => {
                    if !r.name.is_empty() {
                        problems.push(here(ProblemKind::DeprecationPackageNameSet {
                            name: r.name.clone(),
                        }));
                    } else {
                        pkg.deprecation = Some(e.message);
                    }
                }
                fbc::SCHEMA_CHANNEL => match pkg.channels.iter_mut().find(|c| c.name == r.name) {
                    Some(c) => c.deprecation = Some(e.message),
                    None => problems.push(here(unknown()).channel(&r.name)),
                },
                fbc::SCHEMA_BUNDLE => match pkg.bundles.iter_mut().find(|b| b.name == r.name) {
                    Some(b) => b.deprecation = Some(e.message),
                    None => problems.push(here(unknown()).bundle(&r.name)),
                },
                other => problems.push(here(ProblemKind::DeprecationUnknownSchema {
                    schema: other.to_owned(),
                })),
            }
        }
    }

    sort_problems(&mut problems);
    let catalog = Catalog {
        packages: packages.into_values().collect(),
        digest: if dc.digest.is_empty() {
            std::sync::OnceLock::new()
        } else {
            std::sync::OnceLock::from(dc.digest)
        },
        source: dc.root,
        others_count: dc.others_count,
        skipped_packages: {
            let mut names = dc.skipped_packages;
            names.sort();
            names.dedup();
            names
        },
    };
    (catalog, problems)
}
