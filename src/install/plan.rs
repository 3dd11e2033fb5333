//! The plan of an install: every operator resolved, checked and rendered for its profile,
//! the install-wide objects (ClusterCatalogs, marketplace objects) and checks (capabilities,
//! mirror rules, manifest file names, the planned files with what the directory holds), and
//! the lock file, exactly what `create` writes. [`plan`] makes it and prints nothing;
//! [`Staged::write`] writes it, all or nothing.

use super::outcome::{self, ContentError, Outcome};
use super::{Error, Install};
use crate::bundle::source::{MissingOffline, Sources};
use crate::openshift::ClusterVersion;
use crate::output::{self, lock};
use crate::render::profile::{self, BundleContext, CatalogContext, OperatorContext, Profile};
use crate::render::{RenderedObject, Templates};
use crate::resolve::{Cluster, LoadedCatalog, Resolution};

/// How the plan is made, beyond the [`Install`] itself.
pub struct Settings<'x> {
    /// The release the manifests are for.
    pub cluster_version: &'x ClusterVersion,
    /// Templates.
    pub templates: &'x Templates,
    /// Check every image against the install-config mirror rules (when there are any).
    pub mirror_check: bool,
    /// Where bundle content comes from when the catalog does not embed it.
    pub content: &'x BundleContent,
}

/// Why `create` refuses one operator.
#[derive(Debug)]
pub enum Refusal {
    /// It did not resolve, or the chosen bundle fails the profile checks
    /// ([`Outcome::ok`] is false; the outcome says why).
    Resolution,
    /// Another operator already owns its package or one of its CRDs.
    Ownership(String),
    /// Its objects could not be rendered (content, conversion, watch namespace, profile rules).
    Render {
        /// What is wrong, in one message.
        message: String,
        /// Only that bundle content could not be fetched (network or I/O): the content checks
        /// did not run.
        unreachable: bool,
        /// The bundle image `--offline` kept out, when that is all that is wrong (the
        /// message then says no more than that, the way to get it is the same for every
        /// such image: [`Refusal::missing_offline`]).
        missing: Option<MissingOffline>,
    },
}

impl Refusal {
    /// The refusal's own message (none for a resolution failure: the outcome has it).
    pub fn message(&self) -> Option<&str> {
        match self {
            Refusal::Resolution => None,
            Refusal::Ownership(m) | Refusal::Render { message: m, .. } => Some(m),
        }
    }

    /// The bundle image `--offline` kept out, when that is the whole refusal.
    pub fn missing_offline(&self) -> Option<&MissingOffline> {
        match self {
            Refusal::Render { missing, .. } => missing.as_ref(),
            _ => None,
        }
    }

    /// Whether the refusal is only that bundle content could not be fetched.
    pub fn unreachable(&self) -> bool {
        matches!(
            self,
            Refusal::Render {
                unreachable: true,
                ..
            }
        )
    }
}

/// One operator in the plan.
#[derive(Debug)]
pub struct OperatorPlan<'a> {
    /// Its resolution, profile checks and warnings.
    pub outcome: Outcome<'a>,
    /// Why it cannot be installed, if it cannot.
    pub refusal: Option<Refusal>,
}

/// What would be written when every operator can be installed.
#[derive(Debug)]
pub struct Staged {
    /// Every object, in file order.
    pub objects: Vec<RenderedObject>,
    /// The manifest files.
    pub files: Vec<output::ManifestFile>,
    /// The lock file.
    pub lock: lock::Lock,
}

/// What `create` would do: per operator its outcome and refusal, then, when none is refused,
/// the install-wide checks and the files.
#[derive(Debug)]
pub struct Plan<'a> {
    /// The profile non-bootstrap operators are written with.
    pub profile: Option<Profile>,
    /// Install-wide warnings about the target release ([`super::warnings`]).
    pub warnings: Vec<String>,
    /// Install-wide notes: what to run next, nothing wrong ([`super::warnings::for_directory`]).
    pub notes: Vec<String>,
    /// One per configured operator, in configuration order.
    pub operators: Vec<OperatorPlan<'a>>,
    /// The planned files checked with what the install directory already holds (run once every
    /// operator rendered and the install-wide checks before it passed).
    pub file_check: Option<super::files::FileCheck>,
    /// `None` when an operator was refused (the install-wide checks did not run); else what
    /// would be written, or the install-wide refusal.
    pub install: Option<Result<Staged, Error>>,
}

impl Plan<'_> {
    /// Whether any operator is refused.
    pub fn refused(&self) -> bool {
        self.operators.iter().any(|o| o.refusal.is_some())
    }

    /// The files to write, or the error `create` stops with.
    pub fn into_staged(self) -> Result<Staged, Error> {
        let refused = self.refusal_error();
        self.install.unwrap_or(Err(refused))
    }

    /// The error `create` stops with when operators are refused.
    pub fn refusal_error(&self) -> Error {
        let failed = self
            .operators
            .iter()
            .filter(|o| o.refusal.is_some())
            .count();
        let total = self.operators.len();
        if self
            .operators
            .iter()
            .any(|o| o.refusal.as_ref().is_some_and(Refusal::unreachable))
        {
            Error::OperatorsUnreachable { failed, total }
        } else {
            Error::Operators {
                failed,
                total,
                writes: true,
            }
        }
    }
}

/// Resolve every operator for the target release and plan the install: [`Install::catalogs`]
/// must be loaded.
pub fn plan<'a>(inv: &'a Install, settings: &Settings<'_>) -> Result<Plan<'a>, Error> {
    let cluster = Cluster {
        version: Some(settings.cluster_version.clone()),
    };
    let outcomes = outcome::resolve_for_release(inv, &cluster);
    plan_outcomes(inv, outcomes, settings)
}

/// Plan the install for these outcomes (`upgrade-plan --write` gives the planned bundles):
/// render each operator for the profile (conversion of the bundle content, webhooks,
/// APIServices, ClusterCatalogs), then the install-wide checks, the file check and the lock.
pub fn plan_outcomes<'a>(
    inv: &'a Install,
    outcomes: Vec<Outcome<'a>>,
    settings: &Settings<'_>,
) -> Result<Plan<'a>, Error> {
    // Refusals that need no operator come first, before any hashing starts.
    inv.check_feature_set_reaches(settings.cluster_version)?;
    let profile = inv.profile_for(settings.cluster_version)?;
    // The lock's catalog digests read the catalogs' files again: they are hashed on another
    // thread (and the cores it finds free) while the operators are planned (the lock waits
    // for them).
    std::thread::scope(|s| {
        s.spawn(|| {
            for c in &inv.catalogs {
                let _ = c.catalog.read_digest();
            }
        });
        plan_operators(inv, outcomes, settings, profile)
    })
}

/// [`plan_outcomes`] without the digests and the install-wide refusals: the operators
/// rendered on every core, then decided in order.
fn plan_operators<'a>(
    inv: &'a Install,
    outcomes: Vec<Outcome<'a>>,
    settings: &Settings<'_>,
    profile: Option<Profile>,
) -> Result<Plan<'a>, Error> {
    let Settings {
        cluster_version,
        content,
        ..
    } = *settings;
    let olm = inv.target_olm_v1(cluster_version);
    let default_catalogs = crate::openshift::lookup(cluster_version)
        .map(|r| r.default_catalogs())
        .unwrap_or_default();
    let mut objects: Vec<RenderedObject> = Vec::new();
    let mut locked_operators = Vec::new();
    let mut owners: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut operators = Vec::with_capacity(outcomes.len());
    let total = outcomes.len();
    // The subscription profile writes each namespace's Namespace and OperatorGroup once.
    let mut namespaces_written = std::collections::BTreeSet::new();
    // The bundle images the operators below convert are pulled ahead, several at once; each
    // operator then takes its own outcome in configuration order.
    content.sources.prefetch(
        outcomes
            .iter()
            .filter(|o| o.ok() && converts_bundle(o, profile))
            .filter_map(|o| o.resolution.as_ref().ok().map(|r| r.bundle)),
    );
    // What each operator needs of the others, in configuration order: its profile, whether
    // it is the first of its namespace (the subscription profile), where its catalog is named.
    let prepared: Vec<Prepared> = outcomes
        .iter()
        .map(|outcome| Prepared {
            profile: if outcome.subscription.is_some() {
                Some(Profile::Subscription)
            } else {
                profile
            },
            first_in_namespace: outcome
                .subscription
                .as_ref()
                .is_some_and(|s| namespaces_written.insert(s.namespace.clone())),
            catalog_at: catalog_at(inv, outcome),
        })
        .collect();
    // Each operator is rendered on its own, on every core: its bundle read, decoded and
    // converted, its objects rendered, what OLM v1 applies of it checked (and then let go,
    // so that the converted bundles are not all held at once). What one operator's result
    // means for the others (a CRD owned twice) is decided below, in configuration order.
    let renderings: Vec<Option<Result<Rendering, RenderFailure>>> = {
        use rayon::prelude::*;
        outcomes
            .par_iter()
            .zip(&prepared)
            .enumerate()
            .map(|(index, (outcome, prep))| {
                outcome.ok().then(|| {
                    crate::notice::stage(|| {
                        format!(
                            "checking operator \"{}\" ({} of {}): rendering, converting its bundle",
                            outcome.operator.name.value,
                            index + 1,
                            total
                        )
                    });
                    let mut rendered = render_operator(
                        settings,
                        prep.profile,
                        prep.first_in_namespace,
                        outcome,
                        default_catalogs,
                        olm,
                        prep.catalog_at.as_deref(),
                    )?;
                    let applied = std::mem::take(&mut rendered.applied);
                    let report = (!applied.is_empty())
                        .then(|| check_applied_objects(inv, cluster_version, outcome, &applied));
                    Ok(Rendering { rendered, report })
                })
            })
            .collect()
    };
    for (mut outcome, rendering) in outcomes.into_iter().zip(renderings) {
        let Some(rendering) = rendering else {
            operators.push(OperatorPlan {
                outcome,
                refusal: Some(Refusal::Resolution),
            });
            continue;
        };
        let refusal = match rendering {
            Ok(Rendering { rendered, report }) => {
                let op = outcome.operator;
                let applied = match report {
                    None => Ok(()),
                    Some(report) => applied_verdict(&mut outcome, report?)?,
                };
                let conflict = if let Err(refusal) = applied {
                    Some(refusal)
                } else if profile == Some(Profile::ClusterExtension) && !op.bootstrap {
                    let conflict = ownership_conflict(
                        &owners,
                        &op.name.value,
                        &op.package.value,
                        &rendered.owned_crds,
                    );
                    if conflict.is_none() {
                        owners.push((
                            op.name.value.clone(),
                            op.package.value.clone(),
                            rendered.owned_crds.clone(),
                        ));
                    }
                    conflict.map(Refusal::Ownership)
                } else {
                    None
                };
                match conflict {
                    Some(refusal) => Some(refusal),
                    None => {
                        objects.extend(rendered.objects);
                        locked_operators.push(rendered.locked);
                        None
                    }
                }
            }
            Err(failure) => Some(Refusal::Render {
                message: failure.message,
                unreachable: failure.unreachable,
                missing: failure.missing,
            }),
        };
        operators.push(OperatorPlan { outcome, refusal });
    }
    let mut warnings = super::warnings::for_release(inv, cluster_version);
    let mut notes = Vec::new();
    match super::warnings::for_directory(inv) {
        Some(super::warnings::DirectoryNotice::Warning(w)) => warnings.push(w),
        Some(super::warnings::DirectoryNotice::Note(n)) => notes.push(n),
        None => {}
    }
    if profile == Some(Profile::Subscription)
        && let Ok(target) =
            crate::openshift::Target::new(cluster_version, inv.feature_set(), inv.feature_gates())
        && let Some(why) = Profile::why_no_platform_operators(&target)
    {
        let why = match why {
            crate::render::profile::ProfileError::FeatureSet { version, found } => format!(
                "OpenShift {version} has the PlatformOperator API only with featureSet TechPreviewNoUpgrade (found {found})"
            ),
            crate::render::profile::ProfileError::UnsupportedRelease { version, reason } => {
                format!("on OpenShift {version}, {reason}")
            }
        };
        warnings.push(format!(
            "operators without `profile:` are written as OLM v0 Subscriptions: {why}"
        ));
    }
    if operators
        .iter()
        .any(|o: &OperatorPlan<'_>| o.outcome.subscription.is_some())
    {
        warnings.extend(super::subscription::hermeticity_warnings(
            inv,
            &Cluster {
                version: Some(cluster_version.clone()),
            },
        ));
    }
    let mut plan = Plan {
        profile,
        warnings,
        notes,
        operators,
        file_check: None,
        install: None,
    };
    if plan.refused() {
        return Ok(plan);
    }
    let staged = stage(inv, settings, &mut plan, objects, locked_operators);
    plan.install = Some(staged);
    Ok(plan)
}

/// A catalog as the lock records it: the digest of what the run read, with the packages
/// read ([`crate::catalog::model::Catalog::read_digest`]), or with `whole` of the whole
/// catalog.
fn locked_catalog(c: &LoadedCatalog, whole: bool) -> Result<lock::LockedCatalog, Error> {
    let packages = c
        .catalog
        .read_packages()
        .filter(|_| !whole)
        .map(<[String]>::to_vec);
    let digest = match packages {
        Some(_) => c.catalog.read_digest(),
        None => c.catalog.digest(),
    }
    .map_err(|e| Error::Catalog {
        name: c.name.clone(),
        location: c.location.clone(),
        source: Box::new(e),
    })?;
    Ok(lock::LockedCatalog {
        name: c.name.clone(),
        digest,
        packages,
    })
}

/// The install-wide objects and checks, the file check and the lock, once every operator
/// rendered.
fn stage(
    inv: &Install,
    settings: &Settings<'_>,
    plan: &mut Plan<'_>,
    mut objects: Vec<RenderedObject>,
    locked_operators: Vec<lock::LockedOperator>,
) -> Result<Staged, Error> {
    let Settings {
        cluster_version,
        templates,
        mirror_check,
        ..
    } = *settings;
    let profile = plan.profile;
    let outcomes: Vec<&Outcome<'_>> = plan.operators.iter().map(|o| &o.outcome).collect();
    if profile == Some(Profile::ClusterExtension) {
        objects.extend(cluster_catalogs(templates, &outcomes)?);
    }
    objects.extend(super::images::marketplace_objects(
        templates, profile, &outcomes,
    )?);
    objects.extend(super::subscription::marketplace_objects(
        inv,
        templates,
        cluster_version,
        outcomes.iter().any(|o| o.subscription.is_some()),
    )?);
    let objects = without_repeated_marketplace_objects(objects);
    let mut objects = without_repeated_namespaces(objects);
    check_capabilities(inv, &objects)?;
    super::images::check_planned(inv, &outcomes, &objects, !mirror_check)?;
    // Bootstrap readiness (issue 15): roles recorded, then what is written checked with what is there.
    crate::check::readiness::mark_roles(&mut objects, &|name| inv.role_of(name));
    let files = output::manifest_files(&objects)?;
    let file_check = super::files::check_planned_files(inv, cluster_version, &objects, &files)?;
    let errors = file_check.errors();
    plan.file_check = Some(file_check);
    if errors > 0 {
        return Err(Error::Check {
            errors,
            create: true,
        });
    }
    let new_lock = lock::Lock {
        lock_version: lock::LOCK_VERSION,
        cluster_version: Some(cluster_version.text.clone()),
        profile: profile.map(|p| format!("{p:?}")),
        catalogs: inv
            .catalogs
            .iter()
            .map(|c| locked_catalog(c, false))
            .collect::<Result<_, Error>>()?,
        operators: locked_operators,
        manifests: files.iter().map(|f| f.name.clone()).collect(),
        digests: files
            .iter()
            .map(|f| (f.name.clone(), output::sha256_hex(&f.bytes)))
            .collect(),
        lands: landed(inv.installer, &files),
    };
    Ok(Staged {
        objects,
        files,
        lock: new_lock,
    })
}

/// What lands of each file where the installer re-serializes it: with the Agent-based
/// installer, each document of each file becomes `/etc/assisted/extra-manifests/STEM-N.EXT`
/// (openshift/installer `pkg/asset/agent/image/ignition.go`, `addExtraManifests`), re-marshalled
/// with keys sorted and numbers as floats, so the lock names those files and the digest of the
/// object each holds, never bytes of ours there (issue 33 item 4).
fn landed(
    installer: crate::rules::Installer,
    files: &[output::ManifestFile],
) -> std::collections::BTreeMap<String, Vec<lock::Landed>> {
    if installer != crate::rules::Installer::Agent {
        return Default::default();
    }
    files
        .iter()
        .filter_map(|f| {
            let text = std::str::from_utf8(&f.bytes).ok()?;
            let docs = crate::check::yaml::parse(text).ok()?;
            let lands = docs
                .iter()
                .enumerate()
                .map(|(n, d)| lock::Landed {
                    name: crate::check::files::landed_name(&f.name, n),
                    object_sha256: lock::object_sha256(&d.value),
                })
                .collect();
            Some((f.name.clone(), lands))
        })
        .collect()
}

/// The objects OLM v1 applies for one ClusterExtension checked as the API server checks them
/// ([`super::files::check_applied`]); [`applied_verdict`] says what the report means.
fn check_applied_objects(
    inv: &Install,
    cluster_version: &ClusterVersion,
    outcome: &Outcome<'_>,
    applied: &[serde_json::Value],
) -> Result<crate::check::Report, Error> {
    let bundle = outcome
        .resolution
        .as_ref()
        .map(|r| r.bundle.name.as_str())
        .unwrap_or_default();
    super::files::check_applied(inv, cluster_version, outcome.operator, bundle, applied)
}

/// What [`check_applied_objects`] found means for the operator: an object the API server
/// would reject (`cr-schema`, `crd-version`) refuses it unless the configuration waives the
/// rule for it; one it would accept with fields dropped (`cr-pruned`) is a warning on the
/// outcome.
fn applied_verdict(
    outcome: &mut Outcome<'_>,
    report: crate::check::Report,
) -> Result<Result<(), Refusal>, Error> {
    let Ok(r) = &outcome.resolution else {
        return Ok(Ok(()));
    };
    let bundle = r.bundle.name.clone();
    let line = |p: &crate::check::Problem| {
        let object = p
            .object
            .as_deref()
            .map(|o| format!("{o} "))
            .unwrap_or_default();
        format!("{object}(applied by OLM v1): {} [{}]", p.message, p.rule)
    };
    let mut errors = Vec::new();
    for p in &report.problems {
        match p.severity {
            crate::rules::Severity::Error => errors.push(line(p)),
            _ => outcome.warnings.push(crate::resolve::Warning(format!(
                "bundle {bundle}: the API server accepts this object but drops fields: {}",
                line(p)
            ))),
        }
    }
    if errors.is_empty() {
        return Ok(Ok(()));
    }
    let mut rules: Vec<&str> = Vec::new();
    for p in &report.problems {
        if p.severity == crate::rules::Severity::Error && !rules.contains(&p.rule) {
            rules.push(p.rule);
        }
    }
    Ok(Err(Refusal::Render {
        message: format!(
            "bundle {bundle}: the API server would reject {} of the objects OLM v1 applies for this ClusterExtension, so the extension never installs:\n{}\nhint: fix the bundle, or, if the object is not needed, {}",
            if errors.len() == 1 {
                "one".to_string()
            } else {
                errors.len().to_string()
            },
            errors
                .iter()
                .map(|e| format!("- {e}"))
                .collect::<Vec<_>>()
                .join("\n"),
            super::files::FileCheck::waive_hint(&outcome.operator.name.value, &rules)
        ),
        unreachable: false,
        missing: None,
    }))
}

/// What [`Staged::write`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The manifests directory.
    pub manifests_dir: std::path::PathBuf,
    /// The files written (names inside `manifests_dir`), removed and left in place.
    pub files: output::Written,
    /// The lock written (with `--locked`, the lock it matches, left as it was).
    pub lock: lock::Lock,
    /// Whether the lock file was written (not with `--locked`).
    pub lock_written: bool,
}

impl Staged {
    /// The manifests an earlier run wrote (by the lock file) that were edited since, with what
    /// they hold and what this plan would write instead: [`Staged::write`] refuses them unless
    /// [`Install::force`].
    pub fn edited(&self, inv: &Install) -> Result<Vec<output::EditedFile>, Error> {
        let previous = lock::read(&inv.lock_path)?
            .map(|l| l.previous_files())
            .unwrap_or_default();
        let (dir, other) = (inv.output_dir(), inv.other_output_dir());
        let target = output::Target {
            dir: &dir,
            other: Some(&other),
        };
        Ok(output::edited(target, &self.files, &previous))
    }

    /// Write the manifests and the lock file, all or nothing, and take the earlier files the
    /// lock names out of the other folder ([`Install::other_output_folder`], where a run for
    /// another installer wrote them). With `locked`, refuse any difference from the lock on
    /// disk (or no lock on disk), and leave it as it is. Manifests an earlier run wrote that
    /// were edited since are refused unless [`Install::force`].
    pub fn write(self, inv: &Install, locked: bool) -> Result<Written, Error> {
        let Staged {
            files,
            lock: mut new_lock,
            ..
        } = self;
        let previous = lock::read(&inv.lock_path)?;
        if locked {
            let Some(old) = &previous else {
                return Err(lock::Error::Missing {
                    path: inv.lock_path.clone(),
                }
                .into());
            };
            // A lock that records a catalog whole (versions 1 and 2) is matched against the
            // whole catalog's digest, not the digest of what this run read.
            for now in &mut new_lock.catalogs {
                let whole = old
                    .catalogs
                    .iter()
                    .any(|c| c.name == now.name && c.packages.is_none());
                if whole
                    && now.packages.is_some()
                    && let Some(c) = inv.catalogs.iter().find(|c| c.name == now.name)
                {
                    *now = locked_catalog(c, true)?;
                }
            }
            let differences = old.differences(&new_lock);
            if !differences.is_empty() {
                return Err(lock::Error::Mismatch {
                    path: inv.lock_path.clone(),
                    differences,
                }
                .into());
            }
        }
        let previous_files = previous.map(|l| l.previous_files()).unwrap_or_default();
        let (manifests_dir, other) = (inv.output_dir(), inv.other_output_dir());
        crate::notice::stage(|| {
            if locked {
                format!("writing {} manifests", files.len())
            } else {
                format!(
                    "writing {} manifests and {}",
                    files.len(),
                    inv.lock_path.display()
                )
            }
        });
        let lock_bytes = (!locked).then(|| new_lock.to_bytes());
        let target = output::Target {
            dir: &manifests_dir,
            other: Some(&other),
        };
        let written = output::write(
            target,
            &files,
            &previous_files,
            &inv.lock_path,
            lock_bytes.as_deref(),
            inv.force,
        )?;
        Ok(Written {
            manifests_dir,
            files: written,
            lock: new_lock,
            lock_written: !locked,
        })
    }
}

/// What rendering one operator needs from the operators before it.
struct Prepared {
    /// Its output profile.
    profile: Option<Profile>,
    /// The first operator of its namespace (the subscription profile writes the Namespace
    /// and OperatorGroup once).
    first_in_namespace: bool,
    /// Where the configuration names its catalog (`file:line:column`).
    catalog_at: Option<String>,
}

/// Where the configuration names the catalog `outcome` resolved from, `file:line:column`.
fn catalog_at(inv: &Install, outcome: &Outcome<'_>) -> Option<String> {
    let r = outcome.resolution.as_ref().ok()?;
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
}

/// One operator rendered, and the API server's verdict on what OLM v1 applies of it.
struct Rendering {
    /// Its objects and lock entry ([`RenderedOperator::applied`] let go).
    rendered: RenderedOperator,
    /// [`check_applied_objects`]'s report, when OLM v1 applies objects for it.
    report: Option<Result<crate::check::Report, Error>>,
}

/// Why one operator's objects could not be rendered ([`Refusal::Render`]).
#[derive(Default)]
struct RenderFailure {
    /// What is wrong, in one message.
    message: String,
    /// Only that bundle content could not be fetched (network or I/O).
    unreachable: bool,
    /// The bundle image `--offline` kept out, when that is all that is wrong.
    missing: Option<MissingOffline>,
}

impl From<String> for RenderFailure {
    fn from(message: String) -> Self {
        RenderFailure {
            message,
            ..RenderFailure::default()
        }
    }
}

impl From<&str> for RenderFailure {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

/// One operator's objects and its lock entry.
pub struct RenderedOperator {
    /// Its objects.
    pub objects: Vec<RenderedObject>,
    /// Its lock entry.
    pub locked: lock::LockedOperator,
    /// The CRDs its ClusterExtension will own (empty for other profiles).
    pub owned_crds: Vec<String>,
    /// The objects OLM v1 applies for its ClusterExtension: the bundle as the target release
    /// renders it (empty for other profiles, whose objects are the written files).
    pub applied: Vec<serde_json::Value>,
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

/// Whether [`render_operator`] converts the operator's bundle content (which may mean pulling
/// its image): a bootstrap operator's, and a ClusterExtension's (its installer RBAC and the
/// objects OLM v1 applies).
fn converts_bundle(outcome: &Outcome<'_>, profile: Option<Profile>) -> bool {
    outcome.operator.bootstrap
        || (outcome.subscription.is_none() && profile == Some(Profile::ClusterExtension))
}

/// The objects for one resolved operator, by its profile (bootstrap operators: Namespace and
/// the converted bundle; otherwise the profile's custom resources).
fn render_operator(
    settings: &Settings<'_>,
    profile: Option<Profile>,
    first_in_namespace: bool,
    outcome: &Outcome<'_>,
    default_catalogs: &[(&str, i32)],
    olm: Option<crate::openshift::OlmV1>,
    catalog_at: Option<&str>,
) -> Result<RenderedOperator, RenderFailure> {
    let Settings {
        templates, content, ..
    } = *settings;
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
    let mut applied = Vec::new();
    // Only a PlatformOperator's BundleDeployment pins the image (below); every other profile
    // records the catalog's reference, a tag marked as not a pin.
    let mut pinned = super::pin::unpinned_bundle_image(&r.bundle.image);
    let (objects, namespace) = if op.bootstrap {
        // A bootstrap operator's objects are applied as they are: no OLM reads a watch
        // namespace, so it goes straight to the conversion's target namespaces.
        checked_namespace()?;
        let converted =
            convert_bundle(content, r, &namespace, None, watch).map_err(|e| match e {
                // Content from outside the catalog: the webhooks show only now.
                ConvertRefusal::Webhooks { webhooks, .. } => {
                    let cluster = Cluster {
                        version: Some(settings.cluster_version.clone()),
                    };
                    format!(
                        "bundle {:?} declares webhook definitions ({webhooks}); {}",
                        r.bundle.name,
                        outcome::bootstrap_webhooks_advice(op, r, &cluster)
                    )
                    .into()
                }
                ConvertRefusal::Other(failure) => failure,
            })?;
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
                    )
                    .into());
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
                    )
                    .into());
                }
                checked_namespace()?;
                cluster_extension_api_rules(op, r, default_catalogs)?;
                checked_namespace()?;
                let converted = convert_bundle(content, r, &namespace, olm.as_ref(), watch)
                    .map_err(ConvertRefusal::into_failure)?;
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
                applied = converted;
                (objects, Some(namespace))
            }
            Some(Profile::Subscription) => {
                let plan = outcome
                    .subscription
                    .as_ref()
                    .ok_or("the subscription profile's plan is missing")?;
                crate::output::names::check_install_namespace(&plan.namespace, true)?;
                let group = plan
                    .operator_group
                    .as_deref()
                    .map(|name| profile::GroupContext {
                        name,
                        namespace: &plan.namespace,
                        target_namespaces: &plan.target_namespaces,
                    });
                let objects = profile::subscription(
                    templates,
                    &op.name.value,
                    (first_in_namespace && plan.writes_namespace)
                        .then_some(plan.namespace.as_str()),
                    group.as_ref().filter(|_| first_in_namespace),
                    &profile::SubscriptionContext {
                        name: &op.name.value,
                        namespace: &plan.namespace,
                        package: &op.package.value,
                        channel: plan.channel.as_deref(),
                        source: &plan.source.name,
                        source_namespace: &plan.source.namespace,
                        starting_csv: plan.starting_csv.as_deref(),
                        approval: plan.approval.name(),
                    },
                )
                .map_err(text)?;
                (objects, Some(plan.namespace.clone()))
            }
            None => return Err("no output profile applies to this operator".into()),
        }
    };
    let subscription = outcome
        .subscription
        .as_ref()
        .map(|plan| super::subscription::locked(plan, r));
    Ok(RenderedOperator {
        objects,
        owned_crds,
        applied,
        locked: lock::LockedOperator {
            name: op.name.value.clone(),
            package: op.package.value.clone(),
            catalog: r.catalog.name.clone(),
            bundle: r.bundle.name.clone(),
            version: r.bundle.version_text.clone(),
            image: pinned.image,
            bootstrap: op.bootstrap,
            namespace,
            waivers: super::locked_waivers(op),
            not_a_pin: pinned.not_a_pin,
            subscription,
        },
    })
}

/// Objects whose CRDs come with an optional capability: with install-config `capabilities`
/// leaving it out, the CRDs never exist and the objects hang the bootstrap.
fn check_capabilities(inv: &Install, objects: &[RenderedObject]) -> Result<(), Error> {
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
pub struct BundleContent {
    sources: Sources,
    /// `--allow-tags`: a tag-only bundle image whose digest cannot be looked up is written as
    /// it is (the lock says it is not a pin).
    allow_tags: bool,
}

impl BundleContent {
    /// Content from the bundle-source settings and the install's network settings
    /// (`allow_tags` is `--allow-tags`); nothing has failed yet.
    pub fn for_install(
        inv: &Install,
        flags: &super::BundleSettings,
        allow_tags: bool,
    ) -> Result<BundleContent, Error> {
        Ok(BundleContent {
            sources: super::sources::sources(flags, &inv.network, inv.install.as_ref())?,
            allow_tags,
        })
    }
}

/// Why [`convert_bundle`] could not give a bundle's objects.
enum ConvertRefusal {
    /// The bundle declares webhooks and the conversion has no certificate provider: the
    /// webhooks as the conversion lists them, and its whole message.
    Webhooks { webhooks: String, text: String },
    /// Anything else.
    Other(RenderFailure),
}

impl ConvertRefusal {
    /// The refusal as the operator's.
    fn into_failure(self) -> RenderFailure {
        match self {
            ConvertRefusal::Webhooks { text, .. } => text.into(),
            ConvertRefusal::Other(failure) => failure,
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
    olm: Option<&crate::openshift::OlmV1>,
    watch: Option<&str>,
) -> Result<Vec<serde_json::Value>, ConvertRefusal> {
    outcome::converted_bundle(&content.sources, r.bundle, namespace, olm, watch).map_err(
        |e| match e {
            ContentError::Source(e) => {
                let unreachable = e.is_io();
                let mut message = crate::error_chain(&e);
                let missing = content.sources.missing_offline(&e);
                // Said once for every image kept out (the report lists them with the way to
                // get them), not with each.
                if missing.is_none()
                    && let Some(hint) = e.hint()
                {
                    message.push_str("\nhint: ");
                    message.push_str(&hint);
                }
                ConvertRefusal::Other(RenderFailure {
                    message,
                    unreachable,
                    missing,
                })
            }
            ContentError::Convert(e) => match &e {
                crate::convert::Error::WebhooksUnsupported { webhooks, .. } => {
                    ConvertRefusal::Webhooks {
                        webhooks: crate::convert::webhook_list(webhooks),
                        text: crate::error_chain(&e),
                    }
                }
                _ => ConvertRefusal::Other(crate::error_chain(&e).into()),
            },
            ContentError::WatchNamespace(e) => ConvertRefusal::Other(e.to_string().into()),
        },
    )
}

/// One ClusterCatalog per configured catalog with an image that a ClusterExtension resolved
/// from, sorted by name.
fn cluster_catalogs(
    templates: &Templates,
    outcomes: &[&Outcome<'_>],
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

/// Keep one OperatorHub and one CatalogSource of each name: the PlatformOperator profile and
/// the subscription profile may both write them for one catalog (the later one, the
/// subscription profile's, says at least as much).
fn without_repeated_marketplace_objects(objects: Vec<RenderedObject>) -> Vec<RenderedObject> {
    let key = |o: &RenderedObject| (o.kind().to_string(), o.name().to_string());
    let marketplace = |o: &RenderedObject| matches!(o.kind(), "OperatorHub" | "CatalogSource");
    let last: std::collections::BTreeMap<(String, String), usize> = objects
        .iter()
        .enumerate()
        .filter(|(_, o)| marketplace(o))
        .map(|(i, o)| (key(o), i))
        .collect();
    objects
        .into_iter()
        .enumerate()
        .filter(|(i, o)| !marketplace(o) || last.get(&key(o)) == Some(i))
        .map(|(_, o)| o)
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
