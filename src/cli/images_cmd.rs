//! `po-manifests images` and `po-manifests mirror-config`, and the disconnected parts of
//! `create`: which images the resolved operators pull, whether the install-config mirror rules
//! cover them, the oc-mirror ImageSetConfiguration, and the offline marketplace objects of the
//! PlatformOperator profile.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use super::create::color_stderr;
use super::diagnostics::{self, Report};
use super::flags::{ImagesArgs, MirrorConfigArgs, OutputFormat};
use super::invocation::{self, ContentError, Invocation, Outcome};
use super::{EXIT_OK, Error};
use crate::bundle::source::Sources;
use crate::mirror::{self, Finding, ImageUse, Rule, imageset};
use crate::render::{Profile, RenderedObject, Templates, offline};
use crate::resolve::Cluster;

/// The install-config mirror rules (none without an install-config).
pub(super) fn mirror_rules(inv: &Invocation) -> Vec<Rule> {
    inv.install
        .as_ref()
        .map(|i| mirror::rules(&i.config))
        .unwrap_or_default()
}

/// How `images` and `mirror-config` treat bundle images given by tag only (see
/// [`super::pin::reported_bundle_image`]).
struct PinRule {
    /// Where bundle content and tag lookups come from (the bundle-source flags).
    sources: Sources,
    /// The profile `create` would write non-bootstrap operators with (none without a release).
    profile: Option<Profile>,
    allow_tags: bool,
}

impl PinRule {
    /// The rule for this invocation: its bundle-source flags, the profile its release would
    /// be written with, and `--allow-tags`.
    fn new(
        inv: &Invocation,
        flags: &super::flags::BundleSourceArgs,
        allow_tags: bool,
    ) -> Result<PinRule, Error> {
        let profile = inv
            .cluster_version
            .as_ref()
            .and_then(|version| super::create::profile_for(inv, version).ok().flatten());
        Ok(PinRule {
            sources: super::bundle_cmd::sources(flags, &inv.network, inv.install.as_ref())?,
            profile,
            allow_tags,
        })
    }

    /// The operator's bundle image as reported; `Err` names the operator and the image.
    fn bundle(
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
    let mut out = mirror::bundle_images(name, r.bundle);
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
        let converted =
            super::invocation::converted_bundle(sources, r.bundle, &namespace, None, None)
                .map_err(|e| match e {
                    ContentError::Source(e) => Error::BundleSource(Box::new(e)),
                    ContentError::Convert(e) => Error::Disconnected(format!(
                        "operator \"{name}\": {}",
                        crate::error_chain(&e)
                    )),
                    ContentError::WatchNamespace(e) => {
                        Error::Disconnected(format!("operator \"{name}\": {e}"))
                    }
                })?;
        out.extend(mirror::workload_images(name, &converted));
    }
    Ok(out)
}

/// Report each operator that did not resolve; `Err` when any did not. An operator that
/// resolved but fails the profile checks (webhooks, install modes) still has images to mirror:
/// its problems are reported as a warning.
fn report_failures(
    inv: &Invocation,
    outcomes: &[Outcome<'_>],
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let color = color_stderr();
    let mut failed = 0;
    for o in outcomes {
        match &o.resolution {
            Err(_) => {
                if let Some(report) = diagnostics::operator_failure(&inv.config.source, o) {
                    write!(stderr, "{}", report.render(color))?;
                }
                failed += 1;
            }
            Ok(r) if !o.problems.is_empty() => {
                let problems: Vec<String> = o.problems.iter().map(|p| p.to_string()).collect();
                write!(
                    stderr,
                    "{}",
                    Report::warning(format!(
                        "operator \"{}\": {} cannot be installed as configured ({}); its images are listed anyway",
                        o.operator.name.value,
                        r.bundle.name,
                        problems.join("; ")
                    ))
                    .render(color)
                )?;
            }
            Ok(_) => {}
        }
    }
    if failed > 0 {
        return Err(Error::Operators {
            failed,
            total: outcomes.len(),
            writes: false,
        });
    }
    Ok(())
}

#[derive(Serialize)]
struct ImageRow<'a> {
    image: &'a str,
    /// Set for a tag kept with `--allow-tags` (or one `create` does not pin): why it is not a pin.
    #[serde(rename = "notAPin", skip_serializing_if = "Option::is_none")]
    not_a_pin: Option<&'a str>,
    uses: Vec<UseRow<'a>>,
}

/// The table's mark after an image that is a tag, not a pin (after whitespace, so the first
/// field of each line is still the image).
const NOT_A_PIN_MARK: &str = "  # tag only, not a pin";

#[derive(Serialize)]
struct UseRow<'a> {
    operator: &'a str,
    role: &'a mirror::Role,
}

#[derive(Serialize)]
struct ImagesDocument<'a> {
    images: Vec<ImageRow<'a>>,
    rules: &'a [Rule],
    findings: &'a [Finding],
}

/// `po-manifests images`.
pub(super) fn images(
    args: &ImagesArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let inv = Invocation::read(&args.input)?;
    let catalogs = inv.load_catalogs()?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    let outcomes = invocation::resolve_for_release(&inv, &catalogs, &cluster);
    report_failures(&inv, &outcomes, stderr)?;
    let rule = PinRule::new(&inv, &args.bundle_sources, args.allow_tags)?;
    let mut uses = Vec::new();
    let mut not_pins = BTreeMap::new();
    let mut refused = Vec::new();
    for o in &outcomes {
        uses.extend(operator_images(o, &rule, &mut not_pins, &mut refused)?);
    }
    if !refused.is_empty() {
        return Err(Error::Pin(refused));
    }
    let rules = mirror_rules(&inv);
    let check = !args.no_mirror_check && (args.mirror_check || !rules.is_empty());
    let findings = if check {
        mirror::check(&uses, &rules)
    } else {
        Vec::new()
    };
    let grouped = mirror::by_image(&uses);
    match args.output {
        OutputFormat::Table => {
            for image in grouped.keys() {
                let mark = if not_pins.contains_key(*image) {
                    NOT_A_PIN_MARK
                } else {
                    ""
                };
                writeln!(stdout, "{image}{mark}")?;
            }
        }
        format => {
            let doc = ImagesDocument {
                images: grouped
                    .iter()
                    .map(|(image, uses)| ImageRow {
                        image,
                        not_a_pin: not_pins.get(*image).map(String::as_str),
                        uses: uses
                            .iter()
                            .map(|u| UseRow {
                                operator: &u.operator,
                                role: &u.role,
                            })
                            .collect(),
                    })
                    .collect(),
                rules: &rules,
                findings: &findings,
            };
            super::printer::structured(stdout, format, &doc)?;
        }
    }
    if !findings.is_empty() {
        return Err(Error::Mirror {
            findings,
            writes: false,
        });
    }
    Ok(EXIT_OK)
}

/// `po-manifests mirror-config`.
pub(super) fn mirror_config(
    args: &MirrorConfigArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let inv = Invocation::read(&args.input)?;
    let catalogs = inv.load_catalogs()?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    let outcomes = invocation::resolve_for_release(&inv, &catalogs, &cluster);
    report_failures(&inv, &outcomes, stderr)?;
    let rules = mirror_rules(&inv);
    let rule = PinRule::new(&inv, &args.bundle_sources, args.allow_tags)?;
    let mut selections = Vec::new();
    let mut missing = Vec::new();
    // Tag-only bundle images: by the digest create pins them to, or kept as tags.
    let mut pinned_tags = Vec::new();
    let mut not_pins = BTreeMap::new();
    let mut refused = Vec::new();
    for o in &outcomes {
        let Ok(r) = &o.resolution else { continue };
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
        let Some(image) = &r.catalog.image else {
            missing.push(r.catalog.name.clone());
            continue;
        };
        let configured: Vec<String> = o
            .operator
            .channels
            .iter()
            .map(|c| c.value.clone())
            .collect();
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
    missing.sort();
    missing.dedup();
    if !missing.is_empty() {
        return Err(Error::Disconnected(format!(
            "catalog{} {} {} no `image:`; oc-mirror needs the catalog's image reference: add `image:` (the index image, or its mirror under an imageDigestSources rule) to the catalog in the configuration",
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
    let mut text = String::from(
        "# Written by po-manifests mirror-config: oc-mirror v2 mirrors exactly the resolved bundles.\n",
    );
    for (image, operator) in &not_pins {
        text.push_str(&format!(
            "# not a pin: operator \"{operator}\" bundle image {image} is given by tag only and its digest could not be looked up; oc-mirror mirrors what the tag names when it runs\n"
        ));
    }
    text.push_str(
        &crate::output::yaml::to_yaml(&value)
            .map_err(|e| Error::Stdout(std::io::Error::other(e)))?,
    );
    match &args.output_file {
        None => write!(stdout, "{text}")?,
        Some(path) => {
            write_atomic(path, text.as_bytes()).map_err(|source| Error::WriteFile {
                path: path.clone(),
                source,
            })?;
            writeln!(stderr, "wrote {}", path.display())?;
        }
    }
    Ok(EXIT_OK)
}

fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `create`'s disconnected check: with mirror rules in install-config (and no
/// `--no-mirror-check`), every image of the resolved operators (bundle, relatedImages, and the
/// containers of the objects written for bootstrap operators) must be pinned by digest and
/// covered by a rule.
pub(super) fn check_create(
    inv: &Invocation,
    outcomes: &[Outcome<'_>],
    objects: &[RenderedObject],
    skip: bool,
) -> Result<(), Error> {
    let rules = mirror_rules(inv);
    if skip || rules.is_empty() {
        return Ok(());
    }
    let mut uses = Vec::new();
    for o in outcomes {
        if let Ok(r) = &o.resolution {
            uses.extend(mirror::bundle_images(&o.operator.name.value, r.bundle));
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
pub(super) fn marketplace_objects(
    templates: &Templates,
    profile: Option<Profile>,
    outcomes: &[Outcome<'_>],
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
