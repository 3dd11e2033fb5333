//! Linking: the file's typed blobs ([`loader::DeclarativeConfig`]) become the model's
//! [`Catalog`], as operator-registry's `ConvertToModel` (`alpha/declcfg/declcfg_to_model.go`)
//! does, except that every linking problem (rules 1–12 of §1.3) is collected instead of the
//! first stopping the build. Reads the file format, the model, the properties and the problem
//! type; the model knows nothing of it.
//!
//! The blobs are sorted into their packages first, then each package is linked on its own
//! ([`build_with`] hands it out at once, so `catalog validate` checks and drops it): cost is
//! linear in the documents, and the blobs of one package are all that is decoded at a time
//! when the loader left the others in their file ([`super::lazy::LazyDocs`]).

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::Error;
use super::fbc;
use super::image;
use super::loader;
use super::model::{
    Bundle, Catalog, Channel, ChannelEntry, Origin, Package, Property, RelatedImage, check_release,
    parse_version, read_lazy_value,
};
use super::problem::{Problem, ProblemKind, sort_problems};
use super::property::{self, PropertyValue};

/// Packages keyed by name, used while building.
pub type PackageMap = BTreeMap<String, Package>;

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
                PropertyValue::Json(raw) => fbc::check_bundle_object(raw),
                PropertyValue::Checked(outcome) => return outcome.clone(),
                // Checked when it was read.
                PropertyValue::InFile(place) if place.base64_ok => Ok(()),
                // Read it back for the decoder's own error.
                PropertyValue::InFile(place) => {
                    read_lazy_value(file, *place).and_then(|v| fbc::check_bundle_object(&v))
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
/// package, duplicates) are dropped. Fails only when blobs left in their file
/// ([`loader::LoadOptions::lazy_documents`]) cannot be read back.
pub fn build(
    dc: loader::DeclarativeConfig,
    opts: &BuildOptions,
) -> Result<(Catalog, Vec<Problem>), Error> {
    build_with(dc, opts, |pkg, _| Some(pkg)).map(|(catalog, problems, _)| (catalog, problems))
}

/// [`build`], handing each package to `each` as soon as it is linked, with a list for the
/// problems `each` finds in it; the catalog keeps the packages `each` gives back. Packages
/// are linked and handed out on every core; the third list holds `each`'s problems in
/// package (name) order. A caller that only checks the packages (`catalog validate`) gives
/// none back, so the linked model is never held whole: at most the blobs not linked yet and
/// one package per core. Blobs left in their file are decoded when their package is linked.
///
/// Cost is linear in the documents (issue 26 item 9): the blobs are sorted into their
/// packages first, and duplicates are found per package by lookups that borrow the names
/// (no copy of a name, no map of every bundle).
pub fn build_with(
    dc: loader::DeclarativeConfig,
    opts: &BuildOptions,
    each: impl Fn(Package, &mut Vec<Problem>) -> Option<Package> + Sync,
) -> Result<(Catalog, Vec<Problem>, Vec<Problem>), Error> {
    build_linked(dc, opts, each, Vec::new())
}

/// What [`link_file`] gave for one package: what [`build_with`] gives for it when all its
/// blobs are in that file.
#[derive(Debug)]
pub struct LinkedPackage {
    /// The package `each` gave back.
    kept: Option<Package>,
    /// Its linking problems, in the order linking finds them.
    problems: Vec<Problem>,
    /// `each`'s problems.
    handed: Vec<Problem>,
}

/// Link the packages whose `olm.package` blob is in one file (the first of each name; a
/// nameless one is left out) with that file's blobs of each, and hand each to `each`, while
/// the file's blobs are at hand ([`loader::load_each_file`]): for a package whose blobs are
/// all in that file, this is what [`build_with`] gives, without reading any blob back.
/// [`build_linked`] takes these results where that holds, and links the others itself.
pub fn link_file(
    docs: loader::FileDocs,
    opts: &BuildOptions,
    each: &(impl Fn(Package, &mut Vec<Problem>) -> Option<Package> + Sync),
) -> Vec<(String, LinkedPackage)> {
    let loader::FileDocs {
        packages: package_docs,
        channels,
        bundles,
        deprecations,
    } = docs;
    let mut packages: PackageMap = BTreeMap::new();
    for fbc::Located { item: p, origin } in package_docs {
        if !p.name.is_empty() && !packages.contains_key(&p.name) {
            packages.insert(p.name.clone(), new_package(p, origin));
        }
    }
    let packages: Vec<Package> = packages.into_values().collect();
    let slot = |name: &str| {
        packages
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
    };
    let (channels, _) = group(channels, packages.len(), |c| slot(&c.item.package));
    let (bundles, _) = group(bundles, packages.len(), |b| slot(&b.item.package));
    let (deprecations, _) = group(deprecations, packages.len(), |d| slot(&d.item.package));
    packages
        .into_iter()
        .zip(channels.into_iter().zip(bundles).zip(deprecations))
        .map(|(mut pkg, ((channels, bundles), deprecations))| {
            let mut problems = Vec::new();
            link_package(
                &mut pkg,
                channels,
                bundles,
                deprecations,
                opts,
                &mut problems,
            );
            let name = pkg.name.clone();
            let mut handed = Vec::new();
            let kept = each(pkg, &mut handed);
            (
                name,
                LinkedPackage {
                    kept,
                    problems,
                    handed,
                },
            )
        })
        .collect()
}

/// [`build_with`], taking for a package whose blobs are all in one file what [`link_file`]
/// gave for it while that file was read (`linked`: its results, per file).
pub fn build_linked(
    dc: loader::DeclarativeConfig,
    opts: &BuildOptions,
    each: impl Fn(Package, &mut Vec<Problem>) -> Option<Package> + Sync,
    linked: loader::PerFile<Vec<(String, LinkedPackage)>>,
) -> Result<(Catalog, Vec<Problem>, Vec<Problem>), Error> {
    let loader::DeclarativeConfig {
        packages: package_docs,
        channels,
        bundles,
        deprecations,
        others_count,
        skipped_packages,
        digest,
        root,
        mut lazy,
        held_files,
        read_digest,
        single_file,
        ..
    } = dc;
    let mut problems = Vec::new();
    let (packages, split) = link_packages(package_docs, &mut problems);
    // What `link_file` gave, per package (none for a package linked in two files).
    let mut by_name: HashMap<String, Option<(std::sync::Arc<std::path::Path>, LinkedPackage)>> =
        HashMap::new();
    for (file, list) in linked {
        for (name, l) in list {
            match by_name.entry(name) {
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(Some((file.clone(), l)));
                }
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    e.insert(None);
                }
            }
        }
    }
    let done: Vec<Option<(std::sync::Arc<std::path::Path>, LinkedPackage)>> = packages
        .iter()
        .map(|p| {
            by_name
                .remove(&p.name)
                .flatten()
                .filter(|_| !split.contains(&p.name))
        })
        .collect();

    let slot = |name: &str| {
        packages
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .filter(|_| !name.is_empty())
    };
    let (channels, unplaced) = group(channels, packages.len(), |c| slot(&c.item.package));
    unplaced_channels(unplaced, &mut problems);
    let lazy_channels = std::mem::take(&mut lazy.channels);
    let lazy_bundles = std::mem::take(&mut lazy.bundles);
    let (lazy_channels, unplaced) =
        group(lazy_channels, packages.len(), |c| slot(lazy.package_of(c)));
    unplaced_channels(lazy.decode(unplaced)?, &mut problems);
    let (bundles, unplaced) = group(bundles, packages.len(), |b| slot(&b.item.package));
    unplaced_bundles(unplaced, &mut problems);
    let (lazy_bundles, unplaced) =
        group(lazy_bundles, packages.len(), |b| slot(lazy.package_of(b)));
    unplaced_bundles(lazy.decode(unplaced)?, &mut problems);
    let (deprecations, unplaced) = group(deprecations, packages.len(), |d| slot(&d.item.package));
    for fbc::Located { item: d, origin } in unplaced {
        problems.push(if d.package.is_empty() {
            Problem::error(ProblemKind::DeprecationPackageEmpty).at(&origin)
        } else {
            Problem::error(ProblemKind::UnknownPackage {
                schema: fbc::SCHEMA_DEPRECATIONS,
            })
            .package(&d.package)
            .at(&origin)
        });
    }

    // The packages are linked (their blobs left in the file read back) and handed out on
    // every core; their problems are gathered in package order, as one after another gives.
    let groups = channels
        .into_par_iter()
        .zip(lazy_channels)
        .zip(bundles.into_par_iter().zip(lazy_bundles))
        .zip(deprecations);
    let linked: Vec<(Option<Package>, Vec<Problem>, Vec<Problem>)> = packages
        .into_par_iter()
        .zip(done)
        .zip(groups)
        .map(
            |(
                (mut pkg, done),
                (((channels, lazy_channels), (bundles, lazy_bundles)), deprecations),
            )| {
                // Linked while its file was read: it stands when every blob is of that file.
                if let Some((file, done)) = done {
                    let here = |f: &std::sync::Arc<std::path::Path>| {
                        std::sync::Arc::ptr_eq(f, &file) || **f == *file
                    };
                    if here(&pkg.origin.file)
                        && channels.iter().all(|c| here(&c.origin.file))
                        && bundles.iter().all(|b| here(&b.origin.file))
                        && deprecations.iter().all(|d| here(&d.origin.file))
                        && lazy_channels
                            .iter()
                            .all(|k| lazy.file_of(k).is_some_and(here))
                        && lazy_bundles
                            .iter()
                            .all(|k| lazy.file_of(k).is_some_and(here))
                    {
                        return Ok((done.kept, done.problems, done.handed));
                    }
                }
                let mut problems = Vec::new();
                link_package(
                    &mut pkg,
                    joined(channels, lazy.decode(lazy_channels)?),
                    joined(bundles, lazy.decode(lazy_bundles)?),
                    deprecations,
                    opts,
                    &mut problems,
                );
                let mut handed = Vec::new();
                let kept = each(pkg, &mut handed);
                Ok((kept, problems, handed))
            },
        )
        .collect::<Result<_, Error>>()?;
    let mut kept = Vec::new();
    let mut each_problems = Vec::new();
    for (pkg, link_problems, handed) in linked {
        kept.extend(pkg);
        problems.extend(link_problems);
        each_problems.extend(handed);
    }

    sort_problems(&mut problems);
    let catalog = Catalog {
        packages: kept,
        digest: std::sync::Mutex::new((!digest.is_empty()).then_some(digest)),
        source: root,
        held_files,
        single_file,
        read_packages: None,
        read_digest: std::sync::Mutex::new((!read_digest.is_empty()).then_some(read_digest)),
        others_count,
        skipped_packages: {
            let mut names = skipped_packages;
            names.sort();
            names.dedup();
            names
        },
    };
    Ok((catalog, problems, each_problems))
}

/// Rules 4–12 for one package with its blobs (each list in load order).
fn link_package(
    pkg: &mut Package,
    channels: Vec<fbc::Located<fbc::Channel>>,
    bundles: Vec<fbc::Located<fbc::Bundle>>,
    deprecations: Vec<fbc::Located<fbc::Deprecation>>,
    opts: &BuildOptions,
    problems: &mut Vec<Problem>,
) {
    link_channels(pkg, channels, problems);
    link_bundles(pkg, bundles, opts, problems);
    link_entries(pkg, problems);
    link_deprecations(pkg, deprecations, problems);
}

/// A package's blobs of one schema: the decoded ones, then those read back from their file
/// (in a load, one of the two is empty).
fn joined<T>(mut decoded: Vec<T>, read_back: Vec<T>) -> Vec<T> {
    if decoded.is_empty() {
        return read_back;
    }
    decoded.extend(read_back);
    decoded
}

/// Rule 4's channels that name no (or an unknown) package.
fn unplaced_channels(docs: Vec<fbc::Located<fbc::Channel>>, problems: &mut Vec<Problem>) {
    for fbc::Located { item: c, origin } in docs {
        problems.push(if c.package.is_empty() {
            Problem::error(ProblemKind::ChannelPackageEmpty)
                .channel(&c.name)
                .at(&origin)
        } else {
            Problem::error(ProblemKind::UnknownPackage {
                schema: fbc::SCHEMA_CHANNEL,
            })
            .package(&c.package)
            .channel(&c.name)
            .at(&origin)
        });
    }
}

/// Bundles that name no (or an unknown) package.
fn unplaced_bundles(docs: Vec<fbc::Located<fbc::Bundle>>, problems: &mut Vec<Problem>) {
    for fbc::Located { item: b, origin } in docs {
        problems.push(if b.package.is_empty() {
            Problem::error(ProblemKind::BundlePackageEmpty)
                .bundle(&b.name)
                .at(&origin)
        } else {
            Problem::error(ProblemKind::UnknownPackage {
                schema: fbc::SCHEMA_BUNDLE,
            })
            .package(&b.package)
            .bundle(&b.name)
            .at(&origin)
        });
    }
}

/// Rules 1–3: the `olm.package` blobs become packages, sorted by name (duplicates and
/// nameless ones dropped).
/// Also the names whose blobs are in more than one file.
fn link_packages(
    docs: Vec<fbc::Located<fbc::Package>>,
    problems: &mut Vec<Problem>,
) -> (Vec<Package>, std::collections::HashSet<String>) {
    let mut packages: PackageMap = BTreeMap::new();
    let mut split = std::collections::HashSet::new();
    for fbc::Located { item: p, origin } in docs {
        if !crate::kubenames::is_label(&p.name) {
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
            if *first.origin.file != *origin.file {
                split.insert(p.name.clone());
            }
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
        packages.insert(p.name.clone(), new_package(p, origin));
    }
    (packages.into_values().collect(), split)
}

/// The package of an `olm.package` blob, before its channels and bundles are linked.
fn new_package(p: fbc::Package, origin: Origin) -> Package {
    Package {
        name: p.name,
        default_channel: p.default_channel,
        description: Some(p.description).filter(|d| !d.is_empty()),
        channels: Vec::new(),
        bundles: Vec::new(),
        deprecation: None,
        origin,
    }
}

/// Sort blobs into the lists of their `packages` packages (`slot_of`: the index of a blob's
/// package, `None` when it is empty or unknown), keeping load order within each; blobs
/// without a package come back apart, in order. Each list is allocated at its final size,
/// and the input gives its memory back as it is emptied, so the blobs are not held twice.
fn group<E>(
    docs: Vec<E>,
    packages: usize,
    slot_of: impl Fn(&E) -> Option<usize>,
) -> (Vec<Vec<E>>, Vec<E>) {
    const NONE: u32 = u32::MAX;
    let mut counts = vec![0usize; packages];
    let slots: Vec<u32> = docs
        .iter()
        .map(|d| match slot_of(d) {
            Some(s) => {
                counts[s] += 1;
                s as u32
            }
            None => NONE,
        })
        .collect();
    let mut groups: Vec<Vec<E>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    let mut unplaced = Vec::new();
    for (doc, slot) in releasing(docs).zip(slots) {
        match groups.get_mut(slot as usize) {
            Some(group) => group.push(doc),
            None => unplaced.push(doc),
        }
    }
    (groups, unplaced)
}

/// The items of `v` in order, giving its memory back as they are taken (a large vector's
/// buffer is its own mapping, and shrinking one just unmaps its end), so moving the items of
/// a large vector elsewhere does not hold them twice.
fn releasing<T>(mut v: Vec<T>) -> impl Iterator<Item = T> {
    /// Items taken between two shrinks.
    const STEP: usize = 1 << 14;
    v.reverse();
    std::iter::from_fn(move || {
        let item = v.pop()?;
        if v.capacity() - v.len() >= STEP {
            v.shrink_to_fit();
        }
        Some(item)
    })
}

/// Where each later copy of a name was first seen: `(index, first index)` for every item
/// whose name (`None`: not counted) an earlier item has, in order. The names are borrowed.
fn later_copies<'a, T>(
    items: &'a [T],
    name: impl Fn(&'a T) -> Option<&'a str>,
) -> Vec<(usize, usize)> {
    let mut copies = Vec::new();
    if items.len() < 2 {
        return copies;
    }
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Some(n) = name(item) {
            match first.entry(n) {
                std::collections::hash_map::Entry::Occupied(e) => copies.push((i, *e.get())),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
        }
    }
    copies
}

/// Rule 4: a package's channels (named, no duplicates, entries unique).
fn link_channels(
    pkg: &mut Package,
    docs: Vec<fbc::Located<fbc::Channel>>,
    problems: &mut Vec<Problem>,
) {
    let copies: Vec<(usize, Origin)> = later_copies(&docs, |c| {
        Some(c.item.name.as_str()).filter(|n| !n.is_empty())
    })
    .into_iter()
    .map(|(i, first)| (i, docs[first].origin.clone()))
    .collect();
    let mut copies = copies.into_iter().peekable();
    pkg.channels.reserve_exact(docs.len() - copies.len());
    for (i, fbc::Located { item: c, origin }) in docs.into_iter().enumerate() {
        if c.name.is_empty() {
            problems.push(
                Problem::error(ProblemKind::ChannelNameEmpty)
                    .package(&c.package)
                    .at(&origin),
            );
            continue;
        }
        if let Some((_, first)) = copies.next_if(|(j, _)| *j == i) {
            problems.push(
                Problem::error(ProblemKind::DuplicateChannel { first })
                    .package(&c.package)
                    .channel(&c.name)
                    .at(&origin),
            );
            continue;
        }
        let mut repeated = later_copies(&c.entries, |e| Some(e.name.as_str()))
            .into_iter()
            .map(|(j, _)| j)
            .peekable();
        let mut entries = Vec::with_capacity(c.entries.len() - repeated.len());
        for (j, e) in c.entries.into_iter().enumerate() {
            if repeated.next_if_eq(&j).is_some() {
                problems.push(
                    Problem::error(ProblemKind::DuplicateEntry { entry: e.name })
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
        pkg.channels.push(Channel {
            name: c.name,
            entries,
            deprecation: None,
            origin,
        });
    }
}

/// Rules 5–8: a package's bundles (no duplicates; properties, `olm.package`, images, version
/// and release checked).
fn link_bundles(
    pkg: &mut Package,
    docs: Vec<fbc::Located<fbc::Bundle>>,
    opts: &BuildOptions,
    problems: &mut Vec<Problem>,
) {
    let copies: Vec<(usize, Origin)> = later_copies(&docs, |b| Some(b.item.name.as_str()))
        .into_iter()
        .map(|(i, first)| (i, docs[first].origin.clone()))
        .collect();
    let mut copies = copies.into_iter().peekable();
    // Rule 5 (properties parse) is the costly one (it base64-decodes every embedded object
    // when asked to): run it on every core first, report it in order below.
    let property_problems: Vec<Vec<(usize, String)>> = docs
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
    pkg.bundles.reserve_exact(docs.len() - copies.len());
    for (i, (fbc::Located { item: b, origin }, property_problems)) in
        releasing(docs).zip(property_problems).enumerate()
    {
        if let Some((_, first)) = copies.next_if(|(j, _)| *j == i) {
            problems.push(
                Problem::error(ProblemKind::DuplicateBundle { first })
                    .package(&b.package)
                    .bundle(&b.name)
                    .at(&origin),
            );
            continue;
        }
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
            csv: Default::default(),
        });
    }
}

/// Rules 9 and 10: a package's bundles and channel entries meet (every entry names a bundle,
/// every bundle is in a channel). Sorts the channels and bundles by name.
fn link_entries(pkg: &mut Package, problems: &mut Vec<Problem>) {
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
        b.channels.shrink_to_fit();
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

/// Rule 12: a package's `olm.deprecations` blob (at most one) attaches its messages.
fn link_deprecations(
    pkg: &mut Package,
    docs: Vec<fbc::Located<fbc::Deprecation>>,
    problems: &mut Vec<Problem>,
) {
    let mut docs = docs.into_iter();
    let Some(fbc::Located { item: d, origin }) = docs.next() else {
        return;
    };
    for later in docs {
        problems.push(
            Problem::error(ProblemKind::DuplicateDeprecations {
                first: origin.clone(),
            })
            .package(&later.item.package)
            .at(&later.origin),
        );
    }
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
        // Channels and bundles are sorted by name (rules 9 and 10).
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
            fbc::SCHEMA_CHANNEL => match pkg
                .channels
                .binary_search_by(|c| c.name.as_str().cmp(&r.name))
            {
                Ok(i) => pkg.channels[i].deprecation = Some(e.message),
                Err(_) => problems.push(here(unknown()).channel(&r.name)),
            },
            fbc::SCHEMA_BUNDLE => match pkg
                .bundles
                .binary_search_by(|b| b.name.as_str().cmp(&r.name))
            {
                Ok(i) => pkg.bundles[i].deprecation = Some(e.message),
                Err(_) => problems.push(here(unknown()).bundle(&r.name)),
            },
            other => problems.push(here(ProblemKind::DeprecationUnknownSchema {
                schema: other.to_owned(),
            })),
        }
    }
}
