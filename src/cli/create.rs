//! `po-manifests create`: resolve, check, render and write, all or nothing.

use std::io::Write;

use super::diagnostics::{self, Report};
use super::flags::{CreateArgs, OutputFormat};
use super::invocation::{self, ContentError, Invocation, Outcome};
use super::{EXIT_OK, Error};
use crate::bundle::source::Sources;
use crate::openshift::ClusterVersion;
use crate::output::{self, lock};
use crate::render::profile::{self, BundleContext, CatalogContext, OperatorContext, Profile};
use crate::render::{RenderedObject, Templates};
use crate::resolve::{Cluster, LoadedCatalog, Resolution, explain};

pub(super) fn run(
    args: &CreateArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let mut inv = Invocation::read(&args.input)?;
    inv.locked = args.locked;
    // Held until this function returns: one writing run per install directory.
    let _held = lock_install_dir(&inv, args.no_wait, stderr)?;
    let Some(cluster_version) = inv.cluster_version.clone() else {
        return Err(Error::Usage(
            "the target cluster version is not set: add `clusterVersion` to platformOperators or pass --cluster-version"
                .into(),
        ));
    };
    // The profile depends only on the release and feature set: refuse before reading catalogs.
    let profile = profile_for(&inv, &cluster_version)?;
    let templates = Templates::load(args.templates.as_deref())?;
    let progress = super::progress::Progress::new(args.input.quiet);
    progress.stage(&format!("loading {} catalog(s)", inv.config.catalogs.len()));
    let catalogs = inv.load_catalogs()?;
    let cluster = Cluster {
        version: Some(cluster_version.clone()),
    };
    progress.stage(&format!(
        "resolving {} operator(s)",
        inv.config.operators.len()
    ));
    let outcomes = invocation::resolve_for_release(&inv, &catalogs, &cluster);
    let content = BundleContent::for_invocation(&inv, &args.bundle_sources, args.allow_tags)?;
    // The line stays through checking, converting, pulling and writing; what is printed
    // meanwhile goes around it.
    let (mut stdout, mut stderr) = (progress.writer(stdout), progress.writer(stderr));
    let (stdout, stderr) = (&mut stdout, &mut stderr);
    write_install(
        &Install {
            inv: &inv,
            cluster_version: &cluster_version,
            profile,
            templates: &templates,
            catalogs: &catalogs,
            explain: args.input.explain,
            locked: args.locked,
            mirror_check: !args.no_mirror_check,
            content: &content,
            quiet_unreachable: false,
            output: args.output,
        },
        &outcomes,
        stdout,
        stderr,
    )
}

/// Take the install directory's lock (saying so when another run holds it and we wait), then
/// finish or undo what an interrupted run left, before anything reads the lock file.
pub(super) fn lock_install_dir(
    inv: &Invocation,
    no_wait: bool,
    stderr: &mut dyn Write,
) -> Result<output::InstallLock, Error> {
    use output::install_lock::Wait;
    let mut said = Ok(());
    let held = output::InstallLock::acquire(
        &inv.dir,
        if no_wait { Wait::NoWait } else { Wait::Wait },
        || {
            said = writeln!(
                stderr,
                "waiting for another po-manifests run to finish writing {} (--no-wait fails instead)",
                inv.dir.display()
            );
        },
    )?;
    said?;
    if let Some(recovery) = output::recover(&inv.dir.join("manifests"), &inv.lock_path)? {
        writeln!(stderr, "{}: {recovery}", inv.dir.display())?;
    }
    Ok(held)
}

/// The output profile for the non-bootstrap operators of `inv` on `cluster_version`; `None`
/// when every operator is a bootstrap one.
pub(super) fn profile_for(
    inv: &Invocation,
    cluster_version: &ClusterVersion,
) -> Result<Option<Profile>, Error> {
    Ok(if inv.config.operators.iter().any(|o| !o.bootstrap) {
        Some(Profile::for_cluster(
            cluster_version,
            inv.feature_set(),
            inv.feature_gates(),
        )?)
    } else {
        None
    })
}

/// The target's OLM v1 (release table row under install-config's feature set), if it runs one.
pub(super) fn target_olm_v1(
    inv: &Invocation,
    cluster_version: &ClusterVersion,
) -> Option<crate::openshift::OlmV1> {
    crate::openshift::Target::new(cluster_version, inv.feature_set(), inv.feature_gates())
        .ok()
        .and_then(|t| t.olm_v1())
}

/// What [`write_install`] renders and writes for.
pub(super) struct Install<'x> {
    /// The invocation (install directory, configuration, lock path).
    pub inv: &'x Invocation,
    /// The release the manifests are for.
    pub cluster_version: &'x ClusterVersion,
    /// The profile for non-bootstrap operators.
    pub profile: Option<Profile>,
    /// Templates.
    pub templates: &'x Templates,
    /// The catalogs resolved against (their digests go into the lock).
    pub catalogs: &'x [LoadedCatalog],
    /// Print each operator's candidate table.
    pub explain: bool,
    /// Refuse a resolution that differs from the lock file.
    pub locked: bool,
    /// Check every image against the install-config mirror rules (when there are any).
    pub mirror_check: bool,
    /// Where bundle content comes from when the catalog does not embed it.
    pub content: &'x BundleContent,
    /// Do not report operators whose bundle content could not be fetched (the caller names
    /// the skipped checks itself: `resolve`).
    pub quiet_unreachable: bool,
    /// How the written files are listed on stdout.
    pub output: OutputFormat,
}

/// An operator [`check_install`] refused; the diagnostic was already printed.
pub(super) struct Refusal {
    /// Index into the outcomes.
    pub index: usize,
    /// What is wrong, in one message.
    pub message: String,
    /// The refusal is only that bundle content could not be fetched (network or I/O): the
    /// content checks did not run.
    pub unreachable: bool,
}

/// What [`check_install`] found.
pub(super) struct Checked {
    /// The operators refused, in order.
    pub refused: Vec<Refusal>,
    /// When none was refused: the manifest files and the lock file that would be written.
    pub install: Option<(Vec<output::ManifestFile>, lock::Lock)>,
}

/// Report each outcome and run every check `create` runs, writing nothing: resolution,
/// rendering for the profile (conversion of the bundle content, webhooks, APIServices,
/// ClusterCatalogs), the mirror check, and the manifest file names. Shared by `create`,
/// `upgrade-plan --write` and `resolve` (the dry run), so they refuse alike.
pub(super) fn check_install(
    install: &Install<'_>,
    outcomes: &[Outcome<'_>],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Checked, Error> {
    let color = color_stderr();
    let Install {
        inv,
        cluster_version,
        profile,
        templates,
        catalogs,
        explain,
        mirror_check,
        content,
        ..
    } = *install;
    let olm = target_olm_v1(inv, cluster_version);
    let default_catalogs = crate::openshift::lookup(cluster_version)
        .map(|r| r.default_catalogs())
        .unwrap_or_default();
    let mut objects: Vec<RenderedObject> = Vec::new();
    let mut refused = Vec::new();
    let mut locked_operators = Vec::new();
    let mut owners: Vec<(String, String, Vec<String>)> = Vec::new();
    // Render refusals, each distinct message once with every operator it applies to.
    let mut pending: Vec<(String, Vec<&str>)> = Vec::new();
    for (index, outcome) in outcomes.iter().enumerate() {
        for report in diagnostics::operator_warnings(outcome) {
            write!(stderr, "{}", report.render(color))?;
        }
        if explain {
            write_explain(stdout, outcome)?;
        }
        if let Some(report) = diagnostics::operator_failure(&inv.config.source, outcome) {
            write!(stderr, "{}", report.render(color))?;
            refused.push(Refusal {
                index,
                message: report.to_string(),
                unreachable: false,
            });
            continue;
        }
        content.unreachable.set(false);
        crate::notice::stage(|| {
            format!(
                "checking operator \"{}\" ({} of {}): rendering, converting its bundle",
                outcome.operator.name.value,
                index + 1,
                outcomes.len()
            )
        });
        let catalog_at = outcome.resolution.as_ref().ok().and_then(|r| {
            let c = inv
                .config
                .catalogs
                .iter()
                .find(|c| c.name.value == r.catalog.name)?;
            Some(format!(
                "{}:{}:{}",
                inv.config.source.path.display(),
                c.name.span.line,
                c.name.span.column
            ))
        });
        match render_operator(
            templates,
            profile,
            outcome,
            content,
            default_catalogs,
            olm,
            catalog_at.as_deref(),
        ) {
            Ok(rendered) => {
                let op = outcome.operator;
                if profile == Some(Profile::ClusterExtension) && !op.bootstrap {
                    if let Some(message) = ownership_conflict(
                        &owners,
                        &op.name.value,
                        &op.package.value,
                        &rendered.owned_crds,
                    ) {
                        write!(stderr, "{}", Report::message(message.clone()).render(color))?;
                        refused.push(Refusal {
                            index,
                            message,
                            unreachable: false,
                        });
                        continue;
                    }
                    owners.push((
                        op.name.value.clone(),
                        op.package.value.clone(),
                        rendered.owned_crds.clone(),
                    ));
                }
                objects.extend(rendered.objects);
                locked_operators.push(rendered.locked);
            }
            Err(message) => {
                let unreachable = content.unreachable.get();
                if !(unreachable && install.quiet_unreachable) {
                    let name = outcome.operator.name.value.as_str();
                    match pending.iter_mut().find(|(m, _)| *m == message) {
                        Some((_, names)) => names.push(name),
                        None => pending.push((message.clone(), vec![name])),
                    }
                }
                refused.push(Refusal {
                    index,
                    message,
                    unreachable,
                });
            }
        }
    }
    for (message, names) in &pending {
        let who = names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let report = Report::message(format!(
            "operator{} {who}: {message}",
            if names.len() == 1 { "" } else { "s" }
        ));
        write!(stderr, "{}", report.render(color))?;
    }
    if !refused.is_empty() {
        return Ok(Checked {
            refused,
            install: None,
        });
    }
    if profile == Some(Profile::ClusterExtension) {
        objects.extend(cluster_catalogs(templates, outcomes)?);
    }
    objects.extend(super::images_cmd::marketplace_objects(
        templates, profile, outcomes,
    )?);
    let mut objects = without_repeated_namespaces(objects);
    check_capabilities(inv, &objects)?;
    super::images_cmd::check_create(inv, outcomes, &objects, !mirror_check)?;
    // Bootstrap readiness (issue 15): roles recorded, then what is written checked with what is there.
    crate::check::readiness::mark_roles(&mut objects, &|name| super::check_cmd::role_of(inv, name));
    let files = output::manifest_files(&objects)?;
    super::check_cmd::check_create(
        inv,
        cluster_version,
        &objects,
        &files,
        explain,
        stdout,
        stderr,
    )?;
    let new_lock = lock::Lock {
        lock_version: lock::LOCK_VERSION,
        cluster_version: Some(cluster_version.text.clone()),
        profile: profile.map(|p| format!("{p:?}")),
        catalogs: catalogs
            .iter()
            .map(|c| {
                Ok(lock::LockedCatalog {
                    name: c.name.clone(),
                    digest: c.catalog.digest().map_err(|e| Error::Catalog {
                        name: c.name.clone(),
                        location: c.location.clone(),
                        source: Box::new(e),
                    })?,
                })
            })
            .collect::<Result<_, Error>>()?,
        operators: locked_operators,
        manifests: files.iter().map(|f| f.name.clone()).collect(),
    };
    Ok(Checked {
        refused,
        install: Some((files, new_lock)),
    })
}

/// Report each outcome, render the resolved operators, and write the manifests and the lock
/// file, all or nothing: the second half of `create`, shared with `upgrade-plan --write`.
pub(super) fn write_install(
    install: &Install<'_>,
    outcomes: &[Outcome<'_>],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let Install { inv, locked, .. } = *install;
    let checked = check_install(install, outcomes, stdout, stderr)?;
    let Some((files, new_lock)) = checked.install else {
        let failed = checked.refused.len();
        let total = outcomes.len();
        return Err(if checked.refused.iter().any(|r| r.unreachable) {
            Error::OperatorsUnreachable { failed, total }
        } else {
            Error::Operators {
                failed,
                total,
                writes: true,
            }
        });
    };
    let previous = lock::read(&inv.lock_path)?;
    if locked {
        let Some(old) = &previous else {
            return Err(lock::Error::Missing {
                path: inv.lock_path.clone(),
            }
            .into());
        };
        let differences = old.differences(&new_lock);
        if !differences.is_empty() {
            return Err(lock::Error::Mismatch {
                path: inv.lock_path.clone(),
                differences,
            }
            .into());
        }
    }
    let previous_files = previous.map(|l| l.manifests).unwrap_or_default();
    let manifests_dir = inv.dir.join("manifests");
    crate::notice::stage(|| {
        format!(
            "writing {} manifests and {}",
            files.len(),
            inv.lock_path.display()
        )
    });
    let written = output::write(
        &manifests_dir,
        &files,
        &previous_files,
        &inv.lock_path,
        &new_lock.to_bytes(),
    )?;
    if install.output != OutputFormat::Table {
        super::printer::structured(
            stdout,
            install.output,
            &WrittenDocument {
                written: written
                    .written
                    .iter()
                    .map(|n| manifests_dir.join(n).display().to_string())
                    .collect(),
                removed: written
                    .removed
                    .iter()
                    .map(|n| manifests_dir.join(n).display().to_string())
                    .collect(),
                lock_file: inv.lock_path.display().to_string(),
                cluster_version: new_lock.cluster_version.clone(),
                profile: new_lock.profile.clone(),
                operators: &new_lock.operators,
            },
        )?;
    }
    for name in &written.written {
        if install.output == OutputFormat::Table {
            writeln!(stdout, "{}", manifests_dir.join(name).display())?;
        }
    }
    for name in &written.removed {
        writeln!(
            stderr,
            "removed {} (written by an earlier run, no longer needed)",
            manifests_dir.join(name).display()
        )?;
    }
    writeln!(
        stderr,
        "wrote {} manifests and {}",
        written.written.len(),
        inv.lock_path.display()
    )?;
    Ok(EXIT_OK)
}

/// `create -o json|yaml`: the files written and removed, and the lock summary.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct WrittenDocument<'a> {
    written: Vec<String>,
    removed: Vec<String>,
    lock_file: String,
    cluster_version: Option<String>,
    profile: Option<String>,
    operators: &'a [lock::LockedOperator],
}

/// One operator's objects and its lock entry.
struct RenderedOperator {
    objects: Vec<RenderedObject>,
    locked: lock::LockedOperator,
    /// The CRDs its ClusterExtension will own (empty for other profiles).
    owned_crds: Vec<String>,
}

/// OLM v1 lets one ClusterExtension own a CRD, and a package's objects: the operator already
/// rendered that owns `op`'s package or one of its CRDs, if any (openshift-docs: "a
/// CRD-providing bundle can be installed only once").
fn ownership_conflict(
    owners: &[(String, String, Vec<String>)],
    name: &str,
    package: &str,
    crds: &[String],
) -> Option<String> {
    owners.iter().find_map(|(other, other_package, other_crds)| {
        if other_package == package {
            return Some(format!(
                "operators \"{other}\" and \"{name}\" both install package {package}; OLM v1 lets one ClusterExtension own a package's objects, so configure it once"
            ));
        }
        crds.iter().find(|c| other_crds.contains(c)).map(|crd| {
            format!(
                "operators \"{other}\" and \"{name}\" would both own CustomResourceDefinition {crd}; OLM v1 lets one ClusterExtension own a CRD, so install only one of them"
            )
        })
    })
}

/// The objects for one resolved operator, by its profile (bootstrap operators: Namespace and
/// the converted bundle; otherwise the profile's custom resources).
fn render_operator(
    templates: &Templates,
    profile: Option<Profile>,
    outcome: &Outcome<'_>,
    content: &BundleContent,
    default_catalogs: &[(&str, i32)],
    olm: Option<crate::openshift::OlmV1>,
    catalog_at: Option<&str>,
) -> Result<RenderedOperator, String> {
    let r = outcome.resolution.as_ref().map_err(|e| e.to_string())?;
    let op = outcome.operator;
    let channels: Vec<String> = op.channels.iter().map(|c| c.value.clone()).collect();
    let namespace = outcome.install_namespace().unwrap_or_default();
    // The namespace may come from the bundle (suggested-namespace): untrusted, so checked like
    // a configured one, and a platform namespace only when the configuration names it.
    let checked_namespace =
        || crate::output::names::check_install_namespace(&namespace, op.namespace.is_some());
    let operator = OperatorContext {
        name: &op.name.value,
        package: &op.package.value,
        channels: &channels,
        namespace: Some(&namespace),
    };
    let bundle = BundleContext {
        name: &r.bundle.name,
        version: &r.bundle.version_text,
        image: &r.bundle.image,
    };
    let catalog = CatalogContext {
        name: &r.catalog.name,
        image: r.catalog.image.as_deref(),
        priority: r.catalog.priority,
    };
    let text = |e: crate::render::Error| e.to_string();
    let watch = op.watch_namespace.as_ref().map(|w| w.value.as_str());
    let mut owned_crds = Vec::new();
    let mut pinned = super::pin::PinnedImage {
        image: r.bundle.image.clone(),
        not_a_pin: None,
    };
    let (objects, namespace) = if op.bootstrap {
        // A bootstrap operator's objects are applied as they are: no OLM reads a watch
        // namespace, so it goes straight to the conversion's target namespaces.
        checked_namespace()?;
        let converted = convert_bundle(content, r, &namespace, None, watch)?;
        let mut out =
            vec![profile::namespace(templates, &op.name.value, &namespace).map_err(text)?];
        out.extend(converted.into_iter().map(|object| RenderedObject {
            operator: op.name.value.clone(),
            object,
        }));
        (out, Some(namespace))
    } else {
        match profile {
            Some(Profile::PlatformOperator) => {
                if r.bundle.image.is_empty() {
                    return Err(format!(
                        "bundle {} has no image in catalog {}; a BundleDeployment needs one",
                        r.bundle.name, r.catalog.name
                    ));
                }
                let operator = OperatorContext {
                    namespace: None,
                    ..operator
                };
                pinned = super::pin::bundle_image(
                    content.sources.puller(),
                    &r.bundle.image,
                    content.allow_tags,
                )
                .map_err(|m| format!("{m}\nhint: {}", super::pin::TAG_HINT))?;
                let bundle = BundleContext {
                    image: &pinned.image,
                    ..bundle
                };
                let objects = profile::platform_operator(templates, &operator, &bundle, &catalog)
                    .map_err(text)?;
                (objects, None)
            }
            Some(Profile::ClusterExtension) => {
                if r.catalog.image.is_none()
                    && !default_catalogs.iter().any(|(n, _)| *n == r.catalog.name)
                {
                    return Err(format!(
                        "{}catalog \"{}\" has no `image:`, so no ClusterCatalog can be written for it, and it is not one of OpenShift's default ClusterCatalogs ({}); \
                         give the catalog's image, or name the catalog after the default ClusterCatalog it is a snapshot of",
                        catalog_at.map(|a| format!("{a}: ")).unwrap_or_default(),
                        r.catalog.name,
                        default_catalogs
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                checked_namespace()?;
                cluster_extension_api_rules(op, r, default_catalogs)?;
                checked_namespace()?;
                let converted = convert_bundle(content, r, &namespace, olm.as_ref(), watch)?;
                owned_crds = converted
                    .iter()
                    .filter(|o| o["kind"] == "CustomResourceDefinition")
                    .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
                    .collect();
                let form = olm.and_then(|o| o.watch_namespace);
                let objects = profile::cluster_extension(
                    templates,
                    &operator,
                    &bundle,
                    &catalog,
                    &converted,
                    form.zip(watch),
                )
                .map_err(text)?;
                (objects, Some(namespace))
            }
            None => return Err("no output profile applies to this operator".into()),
        }
    };
    Ok(RenderedOperator {
        objects,
        owned_crds,
        locked: lock::LockedOperator {
            name: op.name.value.clone(),
            package: op.package.value.clone(),
            catalog: r.catalog.name.clone(),
            bundle: r.bundle.name.clone(),
            version: r.bundle.version_text.clone(),
            image: pinned.image,
            bootstrap: op.bootstrap,
            namespace,
            waivers: super::check_cmd::locked_waivers(op),
            not_a_pin: pinned.not_a_pin,
        },
    })
}

/// Objects whose CRDs come with an optional capability: with install-config `capabilities`
/// leaving it out, the CRDs never exist and the objects hang the bootstrap.
fn check_capabilities(inv: &Invocation, objects: &[RenderedObject]) -> Result<(), Error> {
    use crate::openshift::{Capability, capability_enabled};
    let caps = inv
        .install
        .as_ref()
        .and_then(|i| i.config.capabilities.as_ref());
    let Some(caps) = caps else { return Ok(()) };
    for (capability, kinds) in [
        (
            Capability::OperatorLifecycleManagerV1,
            &["ClusterExtension", "ClusterCatalog"][..],
        ),
        (
            Capability::Marketplace,
            &["OperatorHub", "CatalogSource"][..],
        ),
    ] {
        let Some(o) = objects.iter().find(|o| kinds.contains(&o.kind())) else {
            continue;
        };
        if !capability_enabled(Some(caps), capability) {
            return Err(Error::Unsupported(format!(
                "install-config `capabilities` (baselineCapabilitySet: {}) does not enable {}, so the cluster will have no {} CRD and bootstrap would wait for it; add {} to additionalEnabledCapabilities",
                caps.baseline_capability_set
                    .as_deref()
                    .unwrap_or("vCurrent"),
                capability.name(),
                o.kind(),
                capability.name()
            )));
        }
    }
    Ok(())
}

/// What the API server would refuse in this operator's ClusterExtension and ClusterCatalog
/// (`render::api_rules`, the CRDs' CEL rules), and a configured catalog that would collide
/// with one of the ClusterCatalogs the release manages itself.
fn cluster_extension_api_rules(
    op: &crate::config::Operator,
    r: &Resolution<'_>,
    default_catalogs: &[(&str, i32)],
) -> Result<(), String> {
    use crate::render::api_rules;
    for c in &op.channels {
        if !api_rules::channel_is_valid(&c.value) {
            return Err(format!(
                "channel \"{}\" is not a DNS-1123 subdomain, so the ClusterExtension CRD refuses it (\"channels entries must be valid DNS1123 subdomains\"); OLM v1 cannot select this channel by name: leave `channel` out to consider every channel",
                c.value
            ));
        }
    }
    if let Some(image) = r.catalog.image.as_deref() {
        let errs = api_rules::cluster_catalog_image_errors(image);
        if !errs.is_empty() {
            return Err(format!(
                "catalog \"{}\": image {image:?} would be refused by the ClusterCatalog CRD (spec.source.image.ref): {}",
                r.catalog.name,
                errs.join("; ")
            ));
        }
        if default_catalogs.iter().any(|(n, _)| *n == r.catalog.name) {
            return Err(format!(
                "catalog \"{}\" has an `image:` but is named like one of the ClusterCatalogs OpenShift creates itself; the ClusterCatalog written for it would collide with the one the cluster manages: rename the catalog, or drop `image:` to use OpenShift's",
                r.catalog.name
            ));
        }
    }
    Ok(())
}

/// Where bundle content comes from, and whether fetching it failed for network or I/O reasons
/// (exit status 3 rather than 1).
pub(super) struct BundleContent {
    sources: Sources,
    unreachable: std::cell::Cell<bool>,
    /// `--allow-tags`: a tag-only bundle image whose digest cannot be looked up is written as
    /// it is (the lock says it is not a pin).
    allow_tags: bool,
}

impl BundleContent {
    /// Content from the bundle-source flags and the invocation's network settings
    /// (`allow_tags` is `--allow-tags`); nothing has failed yet.
    pub(super) fn for_invocation(
        inv: &Invocation,
        flags: &super::flags::BundleSourceArgs,
        allow_tags: bool,
    ) -> Result<BundleContent, Error> {
        Ok(BundleContent {
            sources: super::bundle_cmd::sources(flags, &inv.network, inv.install.as_ref())?,
            unreachable: std::cell::Cell::new(false),
            allow_tags,
        })
    }
}

/// The chosen bundle's registry+v1 content (embedded in the catalog, from `--bundles`, the
/// cache, `--oci-layout` or the registry), converted as OLM v1 does for an AllNamespaces
/// install into `namespace`.
fn convert_bundle(
    content: &BundleContent,
    r: &Resolution<'_>,
    namespace: &str,
    olm: Option<&crate::openshift::OlmV1>,
    watch: Option<&str>,
) -> Result<Vec<serde_json::Value>, String> {
    invocation::converted_bundle(&content.sources, r.bundle, namespace, olm, watch).map_err(|e| {
        match e {
            ContentError::Source(e) => {
                content
                    .unreachable
                    .set(content.unreachable.get() || e.is_io());
                let mut text = crate::error_chain(&e);
                if let Some(hint) = e.hint() {
                    text.push_str("\nhint: ");
                    text.push_str(&hint);
                }
                text
            }
            ContentError::Convert(e) => crate::error_chain(&e),
            ContentError::WatchNamespace(e) => e.to_string(),
        }
    })
}

/// One ClusterCatalog per configured catalog with an image that a ClusterExtension resolved
/// from, sorted by name.
fn cluster_catalogs(
    templates: &Templates,
    outcomes: &[Outcome<'_>],
) -> Result<Vec<RenderedObject>, Error> {
    let mut used: Vec<&LoadedCatalog> = outcomes
        .iter()
        .filter(|o| !o.operator.bootstrap)
        .filter_map(|o| o.resolution.as_ref().ok().map(|r| r.catalog))
        .filter(|c| c.image.is_some())
        .collect();
    used.sort_by(|a, b| a.name.cmp(&b.name));
    used.dedup_by(|a, b| a.name == b.name);
    used.iter()
        .map(|c| {
            profile::cluster_catalog(
                templates,
                &CatalogContext {
                    name: &c.name,
                    image: c.image.as_deref(),
                    priority: c.priority,
                },
            )
            .map_err(Error::from)
        })
        .collect()
}

/// Keep the first Namespace object of each name (operators may share an install namespace).
fn without_repeated_namespaces(objects: Vec<RenderedObject>) -> Vec<RenderedObject> {
    let mut seen = std::collections::BTreeSet::new();
    objects
        .into_iter()
        .filter(|o| o.kind() != "Namespace" || seen.insert(o.name().to_string()))
        .collect()
}

/// `--explain`: the candidate table for one operator.
pub(super) fn write_explain(out: &mut dyn Write, outcome: &Outcome<'_>) -> std::io::Result<()> {
    let candidates = match &outcome.resolution {
        Ok(r) => r.candidates.as_slice(),
        Err(e) => e.candidates(),
    };
    writeln!(
        out,
        "# operator {} (package {})",
        outcome.operator.name.value, outcome.operator.package.value
    )?;
    if candidates.is_empty() {
        writeln!(out, "no candidates")?;
    } else {
        write!(out, "{}", explain::table(candidates))?;
    }
    writeln!(out)
}

/// Whether to colour diagnostics.
pub(super) fn color_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

#[cfg(test)]
mod tests {
    use super::ownership_conflict;

    #[test]
    fn one_owner_per_crd() {
        let owners = vec![(
            "a".to_string(),
            "pkg-a".to_string(),
            vec!["widgets.example.com".to_string()],
        )];
        let crds = [
            "gadgets.example.com".to_string(),
            "widgets.example.com".to_string(),
        ];
        assert_eq!(
            ownership_conflict(&owners, "b", "pkg-b", &crds).unwrap(),
            "operators \"a\" and \"b\" would both own CustomResourceDefinition widgets.example.com; OLM v1 lets one ClusterExtension own a CRD, so install only one of them"
        );
        assert!(ownership_conflict(&owners, "b", "pkg-b", &crds[..1]).is_none());
        assert!(
            ownership_conflict(&owners, "b", "pkg-a", &[])
                .unwrap()
                .contains("both install package pkg-a")
        );
    }
}
