//! `po-manifests create`: resolve, check, render and write, all or nothing.

use std::io::Write;

use super::diagnostics::{self, Report};
use super::flags::CreateArgs;
use super::invocation::{self, ContentError, Invocation, Outcome};
use super::{EXIT_OK, Error};
use crate::bundle::source::Sources;
use crate::config::ClusterVersion;
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
    let catalogs = inv.load_catalogs()?;
    let cluster = Cluster {
        version: Some(cluster_version.clone()),
    };
    let outcomes = invocation::resolve_all(&inv.config, &catalogs, &cluster);
    let content = BundleContent::new(super::bundle_cmd::sources(
        &args.bundle_sources,
        &inv.network,
        inv.install.as_ref(),
    )?);
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
        Some(Profile::for_cluster(cluster_version, inv.feature_set())?)
    } else {
        None
    })
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
}

/// Report each outcome, render the resolved operators, and write the manifests and the lock
/// file, all or nothing: the second half of `create`, shared with `upgrade-plan --write`.
pub(super) fn write_install(
    install: &Install<'_>,
    outcomes: &[Outcome<'_>],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let color = color_stderr();
    let Install {
        inv,
        cluster_version,
        profile,
        templates,
        catalogs,
        explain,
        locked,
        mirror_check,
        content,
    } = *install;
    let mut objects: Vec<RenderedObject> = Vec::new();
    let mut failed = 0;
    let mut locked_operators = Vec::new();
    for outcome in outcomes {
        for report in diagnostics::operator_warnings(outcome) {
            write!(stderr, "{}", report.render(color))?;
        }
        if explain {
            write_explain(stdout, outcome)?;
        }
        if let Some(report) = diagnostics::operator_failure(&inv.config.source, outcome) {
            write!(stderr, "{}", report.render(color))?;
            failed += 1;
            continue;
        }
        match render_operator(templates, profile, outcome, content) {
            Ok(rendered) => {
                objects.extend(rendered.objects);
                locked_operators.push(rendered.locked);
            }
            Err(message) => {
                let report = Report::message(format!(
                    "operator \"{}\": {message}",
                    outcome.operator.name.value
                ));
                write!(stderr, "{}", report.render(color))?;
                failed += 1;
            }
        }
    }
    if failed > 0 && content.unreachable.get() {
        return Err(Error::OperatorsUnreachable {
            failed,
            total: outcomes.len(),
        });
    }
    if failed > 0 {
        return Err(Error::Operators {
            failed,
            total: outcomes.len(),
        });
    }
    if profile == Some(Profile::ClusterExtension) {
        objects.extend(cluster_catalogs(templates, outcomes)?);
    }
    objects.extend(super::images_cmd::marketplace_objects(
        templates, profile, outcomes,
    )?);
    let objects = without_repeated_namespaces(objects);
    super::images_cmd::check_create(inv, outcomes, &objects, !mirror_check)?;
    let files = output::manifest_files(&objects)?;
    let previous = lock::read(&inv.lock_path)?;
    let new_lock = lock::Lock {
        lock_version: lock::LOCK_VERSION,
        cluster_version: Some(cluster_version.text.clone()),
        profile: profile.map(|p| format!("{p:?}")),
        catalogs: catalogs
            .iter()
            .map(|c| lock::LockedCatalog {
                name: c.name.clone(),
                digest: c.catalog.digest.clone(),
            })
            .collect(),
        operators: locked_operators,
        manifests: files.iter().map(|f| f.name.clone()).collect(),
    };
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
    let written = output::write(
        &manifests_dir,
        &files,
        &previous_files,
        &inv.lock_path,
        &new_lock.to_bytes(),
    )?;
    for name in &written.written {
        writeln!(stdout, "{}", manifests_dir.join(name).display())?;
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

/// One operator's objects and its lock entry.
struct RenderedOperator {
    objects: Vec<RenderedObject>,
    locked: lock::LockedOperator,
}

/// The objects for one resolved operator, by its profile (bootstrap operators: Namespace and
/// the converted bundle; otherwise the profile's custom resources).
fn render_operator(
    templates: &Templates,
    profile: Option<Profile>,
    outcome: &Outcome<'_>,
    content: &BundleContent,
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
    let (objects, namespace) = if op.bootstrap {
        checked_namespace()?;
        let converted = convert_bundle(content, r, &namespace)?;
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
                let objects = profile::platform_operator(templates, &operator, &bundle, &catalog)
                    .map_err(text)?;
                (objects, None)
            }
            Some(Profile::ClusterExtension) => {
                if r.catalog.image.is_none()
                    && !profile::OPENSHIFT_DEFAULT_CATALOGS.contains(&r.catalog.name.as_str())
                {
                    return Err(format!(
                        "catalog \"{}\" has no `image:`, so no ClusterCatalog can be written for it, and it is not one of OpenShift's default ClusterCatalogs ({}); \
                         give the catalog's image, or name the catalog after the default ClusterCatalog it is a snapshot of",
                        r.catalog.name,
                        profile::OPENSHIFT_DEFAULT_CATALOGS.join(", ")
                    ));
                }
                checked_namespace()?;
                let converted = convert_bundle(content, r, &namespace)?;
                let objects =
                    profile::cluster_extension(templates, &operator, &bundle, &catalog, &converted)
                        .map_err(text)?;
                (objects, Some(namespace))
            }
            None => return Err("no output profile applies to this operator".into()),
        }
    };
    Ok(RenderedOperator {
        objects,
        locked: lock::LockedOperator {
            name: op.name.value.clone(),
            package: op.package.value.clone(),
            catalog: r.catalog.name.clone(),
            bundle: r.bundle.name.clone(),
            version: r.bundle.version_text.clone(),
            image: r.bundle.image.clone(),
            bootstrap: op.bootstrap,
            namespace,
        },
    })
}

/// Where bundle content comes from, and whether fetching it failed for network or I/O reasons
/// (exit status 3 rather than 1).
pub(super) struct BundleContent {
    sources: Sources,
    unreachable: std::cell::Cell<bool>,
}

impl BundleContent {
    /// Content from these sources; nothing has failed yet.
    pub(super) fn new(sources: Sources) -> BundleContent {
        BundleContent {
            sources,
            unreachable: std::cell::Cell::new(false),
        }
    }
}

/// The chosen bundle's registry+v1 content (embedded in the catalog, from `--bundles`, the
/// cache, `--oci-layout` or the registry), converted as OLM v1 does for an AllNamespaces
/// install into `namespace`.
fn convert_bundle(
    content: &BundleContent,
    r: &Resolution<'_>,
    namespace: &str,
) -> Result<Vec<serde_json::Value>, String> {
    invocation::converted_bundle(&content.sources, r.bundle, namespace).map_err(|e| match e {
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
