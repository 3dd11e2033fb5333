//! Which images the resolved operators pull, whether the install-config mirror rules cover
//! them, the oc-mirror ImageSetConfiguration for them, and the offline marketplace objects of
//! the PlatformOperator profile: the library side of `images`, `mirror-config` and the
//! disconnected checks of `create`. With `mirror-config --to … --update-graph …`, the
//! platform releases of the update path are mirrored too ([`platform_releases`]).

use std::collections::BTreeMap;

use super::outcome::{self, ContentError, Outcome};
use super::{Error, Install};
use crate::bundle::source::Sources;
use crate::mirror::{self, Finding, ImageUse, imageset};
use crate::registry::{self, MirrorRule};
use crate::render::{Profile, RenderedObject, Templates, offline};
use crate::resolve::Resolution;

/// The install-config mirror rules (none without an install-config).
pub fn mirror_rules(inv: &Install) -> Vec<MirrorRule> {
    inv.install
        .as_ref()
        .map(|i| registry::mirror_rules(&i.config))
        .unwrap_or_default()
}

/// How `images` and `mirror-config` treat bundle images given by tag only (see
/// [`super::pin::reported_bundle_image`]).
pub struct PinRule {
    /// Where bundle content and tag lookups come from (the bundle-source flags).
    sources: Sources,
    /// The profile `create` would write non-bootstrap operators with (none without a release).
    profile: Option<Profile>,
    allow_tags: bool,
}

impl PinRule {
    /// The rule for this invocation: its bundle-source flags, the profile its release would
    /// be written with, and `--allow-tags`.
    pub fn new(
        inv: &Install,
        flags: &super::BundleSettings,
        allow_tags: bool,
    ) -> Result<PinRule, Error> {
        let profile = inv
            .cluster_version
            .as_ref()
            .and_then(|version| inv.profile_for(version).ok().flatten());
        Ok(PinRule {
            sources: super::sources::sources(flags, &inv.network, inv.install.as_ref())?,
            profile,
            allow_tags,
        })
    }

    /// The operator's bundle image as reported; `Err` names the operator and the image.
    pub fn bundle(
        &self,
        outcome: &Outcome<'_>,
        image: &str,
    ) -> Result<super::pin::PinnedImage, String> {
        let pins = !outcome.operator.bootstrap && self.profile == Some(Profile::PlatformOperator);
        super::pin::reported_bundle_image(
            self.sources.puller(),
            &outcome.operator.name.value,
            image,
            pins,
            self.allow_tags,
        )
    }
}

/// The images one resolved operator needs: bundle image and relatedImages, plus for a bootstrap
/// operator the containers of its converted workloads (its content embedded in the catalog, or
/// from `--bundles`, the cache, `--oci-layout` or the registry). A bundle image given by tag is
/// reported by its digest when it can be looked up, as create writes it; one that stays a tag
/// is noted in `not_pins`, and a refused one in `refused`.
fn operator_images(
    outcome: &Outcome<'_>,
    rule: &PinRule,
    not_pins: &mut BTreeMap<String, String>,
    refused: &mut Vec<String>,
) -> Result<Vec<ImageUse>, Error> {
    let sources = &rule.sources;
    let Ok(r) = &outcome.resolution else {
        return Ok(Vec::new());
    };
    let name = &outcome.operator.name.value;
    // Every bundle the operator installs: for the subscription profile, also what OLM v0
    // pulls in and the bundles Automatic approval moves them to.
    let mut out: Vec<ImageUse> = Vec::new();
    for (_, b) in outcome::installed_bundles(outcome) {
        for u in mirror::bundle_images(name, b) {
            if !out.iter().any(|x| x.image == u.image && x.role == u.role) {
                out.push(u);
            }
        }
    }
    let _ = r;
    for u in &mut out {
        if u.role == mirror::Role::Bundle {
            match rule.bundle(outcome, &u.image) {
                Ok(pinned) => {
                    if let Some(note) = pinned.not_a_pin {
                        not_pins.insert(pinned.image.clone(), note);
                    }
                    u.image = pinned.image;
                }
                Err(message) => refused.push(message),
            }
        }
    }
    if outcome.operator.bootstrap {
        let namespace = outcome.install_namespace().unwrap_or_default();
        let converted = outcome::converted_bundle(sources, r.bundle, &namespace, None, None)
            .map_err(|e| match e {
                ContentError::Source(e) => Error::BundleSource(Box::new(e)),
                ContentError::Convert(e) => {
                    Error::Disconnected(format!("operator \"{name}\": {}", crate::error_chain(&e)))
                }
                ContentError::WatchNamespace(e) => {
                    Error::Disconnected(format!("operator \"{name}\": {e}"))
                }
            })?;
        out.extend(mirror::workload_images(name, &converted));
    }
    Ok(out)
}

/// What `images` reports: every image use of the resolved operators, the tags that stay tags,
/// the mirror rules and what they leave uncovered.
#[derive(Debug)]
pub struct Images {
    /// Every image use, bundle images by digest where it could be looked up.
    pub uses: Vec<ImageUse>,
    /// Images that are tags, not pins, with the reason.
    pub not_pins: BTreeMap<String, String>,
    /// The install-config mirror rules.
    pub rules: Vec<MirrorRule>,
    /// Images the mirror rules do not cover (when checked).
    pub findings: Vec<Finding>,
}

/// The images of the resolved operators; `check` says whether to check them against the
/// mirror rules. A tag-only bundle image that must be pinned and cannot be is an
/// [`Error::Pin`].
pub fn images(
    inv: &Install,
    outcomes: &[Outcome<'_>],
    rule: &PinRule,
    check: Option<bool>,
) -> Result<Images, Error> {
    let mut uses = Vec::new();
    let mut not_pins = BTreeMap::new();
    let mut refused = Vec::new();
    // Bootstrap operators' bundle images (their workloads' images are listed) are pulled
    // ahead, several at once.
    rule.sources.prefetch(
        outcomes
            .iter()
            .filter(|o| o.operator.bootstrap)
            .filter_map(|o| o.resolution.as_ref().ok().map(|r| r.bundle)),
    );
    for o in outcomes {
        uses.extend(operator_images(o, rule, &mut not_pins, &mut refused)?);
    }
    if !refused.is_empty() {
        return Err(Error::Pin(refused));
    }
    let rules = mirror_rules(inv);
    let check = check.unwrap_or(!rules.is_empty());
    let findings = if check {
        mirror::check(&uses, &rules)
    } else {
        Vec::new()
    };
    Ok(Images {
        uses,
        not_pins,
        rules,
        findings,
    })
}

/// A platform release to mirror: a release of the update path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRelease {
    /// Version.
    pub version: String,
    /// Release image, by digest (from the graph's `payload`).
    pub image: String,
    /// The channel oc-mirror finds it in.
    pub channel: String,
}

/// The releases the cluster passes from `from` (else the lock file's clusterVersion, else the
/// configuration's) to `to` on the update graph, each with its image and a channel that holds
/// it (the path's channel, else one of the graph documents' channels, else the release's own
/// `stable-X.Y`).
pub fn platform_releases(
    inv: &Install,
    from: Option<crate::openshift::ClusterVersion>,
    to: &crate::openshift::ClusterVersion,
    input: &super::upgrade::GraphInput,
) -> Result<(Vec<PlatformRelease>, Vec<String>), Error> {
    let locked = crate::output::lock::read(&inv.lock_path)?
        .and_then(|l| l.cluster_version)
        .map(|text| {
            crate::openshift::ClusterVersion::parse(&text).map_err(|m| {
                Error::Usage(format!(
                    "the lock file {} has clusterVersion {text:?}: {m}; give --from",
                    inv.lock_path.display()
                ))
            })
        })
        .transpose()?;
    let Some(from) = from.or(locked).or_else(|| inv.cluster_version.clone()) else {
        return Err(Error::Usage(
            "the current release is not known: give --from VERSION (no clusterVersion in the lock file or the configuration)".into(),
        ));
    };
    let mut notes = Vec::new();
    let route = super::upgrade::route(inv, &from, to, input, &mut notes)?;
    let Some(path) = route.path else {
        return Ok((Vec::new(), notes));
    };
    let releases = path
        .hops
        .iter()
        .map(|h| {
            let own = format!(
                "stable-{}",
                h.to.version.rsplitn(2, '.').last().unwrap_or("")
            );
            let channel = path
                .channel
                .clone()
                .or_else(|| {
                    route
                        .channels
                        .iter()
                        .find(|c| h.to.channels.contains(c))
                        .cloned()
                })
                .unwrap_or(own);
            PlatformRelease {
                version: h.to.version.clone(),
                image: h.to.image.clone(),
                channel,
            }
        })
        .collect();
    Ok((releases, notes))
}

/// Add `mirror.platform` (oc-mirror v2alpha1 `Platform`): `graph: true` (the update graph
/// data for a disconnected OpenShift Update Service) and per release one channel entry whose
/// `minVersion` and `maxVersion` are that release, so exactly the releases of the path are
/// mirrored.
fn add_platform(value: &mut serde_json::Value, releases: &[PlatformRelease]) {
    if releases.is_empty() {
        return;
    }
    let channels: Vec<serde_json::Value> = releases
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.channel,
                "minVersion": r.version,
                "maxVersion": r.version,
            })
        })
        .collect();
    if let Some(mirror) = value
        .get_mut("mirror")
        .and_then(serde_json::Value::as_object_mut)
    {
        mirror.insert(
            "platform".into(),
            serde_json::json!({"graph": true, "channels": channels}),
        );
    }
}

/// The oc-mirror v2 ImageSetConfiguration that mirrors exactly the resolved bundles (and the
/// platform `releases` of an update path), as YAML text with its header comments
/// (`mirror-config`).
pub fn mirror_config(
    inv: &Install,
    outcomes: &[Outcome<'_>],
    rule: &PinRule,
    releases: &[PlatformRelease],
) -> Result<String, Error> {
    let rules = mirror_rules(inv);
    let mut selections = Vec::new();
    let mut missing = Vec::new();
    // Tag-only bundle images: by the digest create pins them to, or kept as tags.
    let mut pinned_tags = Vec::new();
    let mut not_pins = BTreeMap::new();
    let mut refused = Vec::new();
    for o in outcomes {
        let Ok(first) = &o.resolution else { continue };
        for (catalog, bundle) in outcome::installed_bundles(o) {
            let package = catalog
                .catalog
                .package(&bundle.package)
                .unwrap_or(first.package);
            let r = Resolution {
                catalog,
                package,
                bundle,
                candidates: Vec::new(),
                warnings: Vec::new(),
            };
            let r = &r;
            let configured: Vec<String> =
                if std::ptr::eq(bundle, first.bundle) || bundle.package == first.bundle.package {
                    o.operator
                        .channels
                        .iter()
                        .map(|c| c.value.clone())
                        .collect()
                } else {
                    o.subscription
                        .as_ref()
                        .and_then(|s| {
                            s.dependencies
                                .iter()
                                .find(|d| d.bundle.package == bundle.package)
                        })
                        .map(|d| vec![d.channel.clone()])
                        .unwrap_or_default()
                };
            if !r.bundle.image.is_empty() {
                match rule.bundle(o, &r.bundle.image) {
                    Ok(p) if p.not_a_pin.is_some() => {
                        not_pins.insert(p.image, o.operator.name.value.clone());
                    }
                    Ok(p) if p.image != r.bundle.image => pinned_tags.push(p.image),
                    Ok(_) => {}
                    Err(message) => refused.push(message),
                }
            }
            // A catalog given without `image:` and named after one the release serves itself
            // (`redhat-operators`, `openshift-certified-operators`, …) is a snapshot of that
            // release's own index image.
            let default_image = || {
                let release = crate::openshift::lookup(inv.cluster_version.as_ref()?).ok()?;
                release.default_index_image(&r.catalog.name)
            };
            let Some(image) = r.catalog.image.clone().or_else(default_image) else {
                missing.push(r.catalog.name.clone());
                continue;
            };
            let image = &image;
            let mut channels = imageset::channels_for(&r.bundle.channels, &configured);
            if channels.is_empty() {
                channels = r.bundle.channels.clone();
            }
            selections.push(imageset::Selection {
                catalog: imageset::source_of(image, &rules).unwrap_or_else(|| image.clone()),
                package: r.package.name.clone(),
                default_channel: r.package.default_channel.clone(),
                channels,
                version: r.bundle.version_text.clone(),
                parsed: r.bundle.version.clone(),
            });
        }
    }
    missing.sort();
    missing.dedup();
    if !missing.is_empty() {
        return Err(Error::Disconnected(format!(
            "catalog{} {} {} no `image:`; oc-mirror needs the catalog's image reference: add `image:` (the index image, or its mirror under an imageDigestSources rule) to the catalog in the configuration, or name a snapshot of a catalog OpenShift serves itself after it (`redhat-operators`, `openshift-redhat-operators`, …) to mirror that release's index image",
            if missing.len() == 1 { "" } else { "s" },
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", "),
            if missing.len() == 1 { "has" } else { "have" }
        )));
    }
    if !refused.is_empty() {
        return Err(Error::Pin(refused));
    }
    let mut value = imageset::image_set(&selections);
    imageset::add_additional_images(&mut value, &pinned_tags);
    add_platform(&mut value, releases);
    let mut text = String::from(
        "# Written by po-manifests mirror-config: oc-mirror v2 mirrors exactly the resolved bundles.\n",
    );
    for r in releases {
        text.push_str(&format!(
            "# platform release {} (channel {}): {}\n",
            crate::text::printable(&r.version),
            crate::text::printable(&r.channel),
            crate::text::printable(&r.image)
        ));
    }
    for (image, operator) in &not_pins {
        text.push_str(&format!(
            "# not a pin: operator \"{operator}\" bundle image {image} is given by tag only and its digest could not be looked up; oc-mirror mirrors what the tag names when it runs\n"
        ));
    }
    text.push_str(
        &crate::output::yaml::to_yaml(&value)
            .map_err(|e| Error::Stdout(std::io::Error::other(e)))?,
    );
    Ok(text)
}

/// `create`'s disconnected check: with mirror rules in install-config (and no
/// `--no-mirror-check`), every image of the resolved operators (bundle, relatedImages, and the
/// containers of the objects written for bootstrap operators) must be pinned by digest and
/// covered by a rule.
pub fn check_planned(
    inv: &Install,
    outcomes: &[&Outcome<'_>],
    objects: &[RenderedObject],
    skip: bool,
) -> Result<(), Error> {
    let rules = mirror_rules(inv);
    if skip || rules.is_empty() {
        return Ok(());
    }
    let mut uses = Vec::new();
    for o in outcomes {
        for (_, b) in outcome::installed_bundles(o) {
            uses.extend(mirror::bundle_images(&o.operator.name.value, b));
        }
    }
    for o in objects {
        uses.extend(mirror::workload_images(
            &o.operator,
            std::slice::from_ref(&o.object),
        ));
        // A CatalogSource image is usually pulled by tag straight from the mirror registry:
        // fine when it is on a mirror registry, checked like any other image otherwise.
        if o.kind() == "CatalogSource"
            && let Some(image) = o.object.pointer("/spec/image").and_then(|i| i.as_str())
            && !mirror::on_mirror_registry(image, &rules)
        {
            uses.push(ImageUse {
                image: image.to_string(),
                operator: o.operator.clone(),
                role: mirror::Role::CatalogIndex {
                    catalog: o
                        .object
                        .pointer("/metadata/annotations/po-manifests.openshift.io~1catalog")
                        .and_then(|c| c.as_str())
                        .unwrap_or("")
                        .to_string(),
                },
            });
        }
    }
    let findings = mirror::check(&uses, &rules);
    if findings.is_empty() {
        Ok(())
    } else {
        Err(Error::Mirror {
            findings,
            writes: true,
        })
    }
}

/// The PlatformOperator profile's offline objects: when the catalog the platform operators
/// resolved from has an `image:`, an `OperatorHub` disabling the default `redhat-operators`
/// source and a `CatalogSource` `redhat-operators` on that image.
pub fn marketplace_objects(
    templates: &Templates,
    profile: Option<Profile>,
    outcomes: &[&Outcome<'_>],
) -> Result<Vec<RenderedObject>, Error> {
    if profile != Some(Profile::PlatformOperator) {
        return Ok(Vec::new());
    }
    let mut images: Vec<(&str, &str)> = outcomes
        .iter()
        .filter(|o| !o.operator.bootstrap)
        .filter_map(|o| o.resolution.as_ref().ok())
        .filter_map(|r| {
            r.catalog
                .image
                .as_deref()
                .map(|i| (r.catalog.name.as_str(), i))
        })
        .collect();
    images.sort();
    images.dedup();
    match images.as_slice() {
        [] => Ok(Vec::new()),
        [(name, image)] => Ok(offline::marketplace_objects(templates, name, image)?),
        many => Err(Error::Disconnected(format!(
            "the PlatformOperator manager reads only the CatalogSource openshift-marketplace/redhat-operators, but the platform operators resolved from {} catalogs with images ({}); resolve them all from one catalog",
            many.len(),
            many.iter()
                .map(|(n, i)| format!("\"{n}\" = {i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
