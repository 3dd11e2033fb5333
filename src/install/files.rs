//! The files `create` is about to write, checked with what `D/manifests` and `D/openshift`
//! already hold, under the rules of [`crate::check`] (cluster-bootstrap's, the installer's and
//! the bootstrap-readiness rules), as `check --dir` would check the directory afterwards.

use std::collections::BTreeMap;

use super::{Error, Install};
use crate::check::{self, Dir, ManifestFile, Options, Waiver};
use crate::config;
use crate::openshift::ClusterVersion;
use crate::output::{self, lock};
use crate::render::RenderedObject;
use crate::rules::Severity;

/// What the check of the planned files found.
#[derive(Debug)]
pub struct FileCheck {
    /// Every problem, sorted, and the waived ones.
    pub report: check::Report,
}

impl FileCheck {
    /// Whether a problem refuses the run: an error in a file po-manifests writes, or an error of
    /// an install-config rule (`external-without-ccm`: the set po-manifests completes cannot
    /// bring the install up, and `check` afterwards calls it fatal). Problems only in other
    /// files are warnings here; `check` reports them with their own severity.
    pub fn refuses(p: &check::Problem) -> bool {
        let install_rule = crate::rules::rule(p.rule)
            .is_some_and(|r| r.applies == crate::rules::Applies::InstallConfig);
        p.severity == Severity::Error && (p.planned || p.operator.is_some() || install_rule)
    }

    /// How to waive `rules` for one operator's objects: its `waive:` entry (every check rule
    /// can be waived for one operator, with a reason the lock file records). The words after
    /// "if this is known to be safe, " or the like.
    pub fn waive_hint(operator: &str, rules: &[&str]) -> String {
        format!(
            "waive the rule{} for operator \"{}\" in its configuration: `waive: [{}]` (the reason is recorded in the lock file)",
            if rules.len() == 1 { "" } else { "s" },
            crate::text::printable(operator),
            rules
                .iter()
                .map(|r| format!("{{rule: {r}, reason: \"...\"}}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// How many problems refuse the run.
    pub fn errors(&self) -> usize {
        self.report
            .problems
            .iter()
            .filter(|p| Self::refuses(p))
            .count()
    }
}

/// The install-config facts as [`check`] reads them: the config, its path inside the install
/// directory, and its text when it is `install-config.yaml` itself.
pub fn install_source(found: &config::install::Found) -> check::InstallSource<'_> {
    let is_install_config = found
        .path
        .file_name()
        .is_some_and(|n| n == "install-config.yaml");
    let path = match (found.path.parent(), found.path.file_name()) {
        (Some(p), Some(n))
            if p.file_name()
                .is_some_and(|d| d == "manifests" || d == "cluster-manifests") =>
        {
            format!(
                "{}/{}",
                p.file_name().unwrap_or_default().to_string_lossy(),
                n.to_string_lossy()
            )
        }
        (_, Some(n)) => n.to_string_lossy().into_owned(),
        _ => found.path.display().to_string(),
    };
    check::InstallSource {
        config: &found.config,
        path,
        text: if is_install_config {
            crate::fsread::read_to_string(&found.path, crate::fsread::SMALL_FILE_LIMIT, None).ok()
        } else {
            None
        },
    }
}

/// Check the files about to be written (bootstrap operators' objects with their roles)
/// together with what `manifests/` and `openshift/` already hold ([`FileCheck::refuses`] says
/// which problems refuse the run).
pub fn check_planned_files(
    inv: &Install,
    cluster_version: &ClusterVersion,
    objects: &[RenderedObject],
    files: &[output::ManifestFile],
) -> Result<FileCheck, Error> {
    let previous = lock::read(&inv.lock_path)?
        .map(|l| l.previous_files())
        .unwrap_or_default();
    let (folder, other_folder) = (inv.output_folder(), inv.other_output_folder());
    let (dir, other) = (inv.output_dir(), inv.other_output_dir());
    // The earlier files this run takes out (or refuses to touch, and then writes nothing),
    // here or in the other folder, are not checked; the ones it leaves in place are, like any
    // other file.
    let target = output::Target {
        dir: &dir,
        other: Some(&other),
    };
    let survey = output::Survey::new(target, files, &previous);
    let left = survey.left(inv.force);
    let taken_out: Vec<(Dir, &str)> = survey
        .earlier
        .iter()
        .filter(|e| !left.contains(e))
        .map(|e| {
            let dir = if e.elsewhere { other_folder } else { folder };
            (dir, e.name.as_str())
        })
        .collect();
    let mut planned: Vec<ManifestFile> = files
        .iter()
        .zip(objects)
        .map(|(f, o)| ManifestFile {
            dir: folder,
            name: f.name.clone(),
            text: String::from_utf8_lossy(&f.bytes).into_owned(),
            size: f.bytes.len() as u64,
            operator: Some(o.operator.clone()),
            role: inv.role_of(&o.operator),
            planned: true,
        })
        .collect();
    let mut sink_files = Vec::new();
    let mut existing_problems = Vec::new();
    {
        // Files on disk, minus the ones this run replaces.
        let report_dir = check::check_dir_files(&inv.dir, inv.installer, inv.follow_links)
            .map_err(|e| Error::ReadFile {
                path: e.path.clone(),
                source: e.source,
            })?;
        let replaced = |dir: Dir, name: &str| {
            (dir == folder && planned.iter().any(|p| p.name == name))
                || taken_out.contains(&(dir, name))
        };
        for f in report_dir.0 {
            if !replaced(f.dir, &f.name) {
                sink_files.push(f);
            }
        }
        for p in report_dir.1 {
            let taken = [Dir::Manifests, Dir::Openshift].into_iter().any(|dir| {
                p.file
                    .strip_prefix(dir.name())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|name| replaced(dir, name))
            });
            if !taken {
                existing_problems.push(p);
            }
        }
    }
    planned.extend(sink_files);
    let install = inv.install.as_ref();
    let waivers = inv
        .config
        .operators
        .iter()
        .flat_map(|o| {
            o.waive.iter().map(|w| Waiver {
                operator: o.name.value.clone(),
                rule: w.rule.value.clone(),
                reason: w.reason.clone(),
            })
        })
        .collect();
    let options = Options {
        release: check::Provided::new(
            Some(cluster_version),
            install.and_then(|i| i.config.capabilities.as_ref()),
        ),
        install: install.map(install_source),
        roles: BTreeMap::new(),
        waivers,
        installer: inv.installer,
        follow_links: inv.follow_links,
    };
    let mut report = check::check(&planned, &options);
    report.problems.extend(existing_problems);
    report.problems.sort();
    Ok(FileCheck { report })
}

/// The rules the API server itself applies to an object OLM v1 creates: a version the CRD
/// serves, its schema (errors: the object is rejected), and pruning (a warning: the object is
/// accepted with fields dropped).
const API_SERVER_RULES: &[&str] = &["crd-version", "cr-schema", "cr-pruned"];

/// The objects OLM v1 applies for `op`'s ClusterExtension (`bundle` as the target release
/// renders it), checked under the API server's own rules ([`API_SERVER_RULES`]) with the
/// operator's waivers. Problems name the object; waived ones are in `waived`.
pub fn check_applied(
    inv: &Install,
    cluster_version: &ClusterVersion,
    op: &config::Operator,
    bundle: &str,
    objects: &[serde_json::Value],
) -> Result<check::Report, Error> {
    // The rules read a custom resource together with its CRD, so only those pairs are checked:
    // most bundles ship no instance of their own CRDs, and then there is nothing to read.
    let defined = |o: &serde_json::Value| -> Option<(String, String)> {
        (o["kind"] == "CustomResourceDefinition").then(|| {
            (
                o["spec"]["group"].as_str().unwrap_or_default().to_string(),
                o["spec"]["names"]["kind"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
    };
    let instance_of = |o: &serde_json::Value| -> (String, String) {
        let api = o["apiVersion"].as_str().unwrap_or_default();
        let group = api.rsplit_once('/').map_or("", |(g, _)| g);
        (
            group.to_string(),
            o["kind"].as_str().unwrap_or_default().to_string(),
        )
    };
    let crds: Vec<(String, String)> = objects.iter().filter_map(defined).collect();
    let instances: Vec<(String, String)> = objects
        .iter()
        .filter(|o| defined(o).is_none())
        .map(instance_of)
        .filter(|gk| crds.contains(gk))
        .collect();
    if instances.is_empty() {
        return Ok(check::Report::default());
    }
    let objects: Vec<&serde_json::Value> = objects
        .iter()
        .filter(|o| match defined(o) {
            Some(gk) => instances.contains(&gk),
            None => instances.contains(&instance_of(o)),
        })
        .collect();
    let files: Vec<ManifestFile> = objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let text = crate::output::yaml::to_yaml(o)
                .map_err(|e| Error::Bundle(format!("bundle {bundle}: {e}")))?;
            Ok(ManifestFile {
                dir: Dir::Manifests,
                name: format!("{bundle}_{i:02}.yaml"),
                size: text.len() as u64,
                text,
                operator: Some(op.name.value.clone()),
                role: None,
                planned: true,
            })
        })
        .collect::<Result<_, Error>>()?;
    let options = Options {
        release: check::Provided::new(
            Some(cluster_version),
            inv.install
                .as_ref()
                .and_then(|i| i.config.capabilities.as_ref()),
        ),
        install: None,
        roles: BTreeMap::new(),
        // One object a file, whatever installer reads the directory: these are not its files.
        installer: crate::rules::Installer::OpenshiftInstall,
        follow_links: false,
        waivers: op
            .waive
            .iter()
            .map(|w| Waiver {
                operator: op.name.value.clone(),
                rule: w.rule.value.clone(),
                reason: w.reason.clone(),
            })
            .collect(),
    };
    let mut report = check::check(&files, &options);
    report
        .problems
        .retain(|p| API_SERVER_RULES.contains(&p.rule));
    // The objects are not files: say "in the bundle", not the name they were checked under.
    for p in report
        .problems
        .iter_mut()
        .chain(report.waived.iter_mut().map(|w| &mut w.problem))
    {
        for f in &files {
            p.message = p.message.replace(&format!(" in {}", f.path()), "");
        }
        p.file = format!("bundle {bundle}");
    }
    report
        .waived
        .retain(|w| API_SERVER_RULES.contains(&w.problem.rule));
    Ok(report)
}
