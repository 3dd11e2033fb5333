//! `check --dir D` as a library step: any installer directory (ours or anyone's) checked under
//! [`crate::check`]'s rules, with the target release from the configuration or the lock file,
//! waivers from the lock file, and each po-manifests file attributed to its operator.

use std::collections::BTreeMap;
use std::path::Path;

use super::Error;
use super::files::install_source;
use crate::check::{self, Options, Report, Waiver};
use crate::config;
use crate::openshift::ClusterVersion;
use crate::output::{self, lock};
use crate::rules::{Installer, Role, Severity};

/// Check the install directory `dir`: `roles` are the workloads' roles given by name,
/// `version` the target release (else the configuration's `clusterVersion`, else the lock
/// file's, else the one the installer's own files name: [`config::install::named_release`]), `installer` the installer that reads it (else the configuration's `installer:`,
/// else openshift-install). An install-config or lock file that cannot be read (a FIFO, a
/// link out of `dir`) is a problem of the report, never followed. `manifests/` and `openshift/`
/// are followed out of `dir` only with `follow_links` ([`crate::fsread::own_folder`]).
pub fn check_dir(
    dir: &Path,
    roles: BTreeMap<String, Role>,
    version: Option<ClusterVersion>,
    installer: Option<Installer>,
    follow_links: bool,
) -> Result<Report, Error> {
    let mut unreadable = Vec::new();
    let install = match config::install::read_following(dir, follow_links) {
        Ok(i) => i,
        Err(e) if e.is_io() => {
            unreadable.push(problem_unreadable(dir, &e));
            None
        }
        Err(e) => return Err(e.into()),
    };
    let lock_path = dir.join(lock::LOCK_FILE);
    // lock::read refuses a link out of `dir` and what is not a regular file (a FIFO), unread.
    let previous = match lock::read(&lock_path) {
        Ok(previous) => previous,
        Err(lock::Error::Io { source, .. }) => {
            unreadable.push(check::Problem {
                file: lock::LOCK_FILE.into(),
                line: 0,
                severity: Severity::Error,
                rule: "unreadable",
                object: None,
                message: format!("not read: {source}"),
                operator: None,
                planned: false,
            });
            None
        }
        Err(e) => return Err(e.into()),
    };
    let configured = config::discover(dir, None).ok();
    let installer = installer
        .or_else(|| {
            configured
                .as_ref()
                .and_then(|c| c.installer.as_ref().map(|i| i.value))
        })
        .unwrap_or_default();
    let configured = configured.and_then(|c| c.cluster_version.map(|v| v.value));
    let given = version.or(configured).or_else(|| {
        previous
            .as_ref()
            .and_then(|l| l.cluster_version.as_deref())
            .and_then(|t| ClusterVersion::parse(t).ok())
    });
    // Else the release the installer's own files name (issue 33 item 7).
    let named = match given {
        Some(_) => None,
        None => config::install::named_release(dir),
    };
    let version = given.or_else(|| named.as_ref().map(|n| n.version.clone()));
    let waivers: Vec<Waiver> = previous
        .iter()
        .flat_map(|l| &l.operators)
        .flat_map(|o| {
            o.waivers.iter().map(|w| Waiver {
                operator: o.name.clone(),
                rule: w.rule.clone(),
                reason: w.reason.clone(),
            })
        })
        .collect();
    let operators: Vec<String> = previous
        .iter()
        .flat_map(|l| &l.operators)
        .map(|o| o.name.clone())
        .collect();
    let install_source = install.as_ref().map(install_source);
    let options = Options {
        release: check::Provided::new(
            version.as_ref(),
            install
                .as_ref()
                .and_then(|i| i.config.capabilities.as_ref()),
        ),
        install: install_source,
        roles,
        waivers,
        installer,
        follow_links,
    };
    let mut report = check::check_dir(dir, &options).map_err(|e| Error::ReadFile {
        path: e.path.clone(),
        source: e.source,
    })?;
    report.problems.extend(unreadable);
    report.problems.sort();
    if !dir.join("manifests").is_dir() && !dir.join("openshift").is_dir() {
        report.notes.push(format!(
            "{} has neither manifests/ nor openshift/: nothing to check (run `openshift-install create manifests` first)",
            dir.display()
        ));
    }
    match (&version, &named) {
        (None, _) => report.notes.push(format!(
            "no target release given (--cluster-version, or clusterVersion in the configuration or lock file) and none named by the installer's own files: checked against OpenShift {}",
            options.release.release_name()
        )),
        (Some(v), Some(n)) => report.notes.push(format!(
            "target release {v}, as the installer's own {} names it",
            n.file
        )),
        (Some(_), None) => {}
    }
    // A file a po-manifests run wrote belongs to its operator (for waivers).
    for p in report.problems.iter_mut() {
        if p.operator.is_none() {
            p.operator = owner(&operators, &p.file);
        }
    }
    let (kept, waived): (Vec<_>, Vec<_>) = std::mem::take(&mut report.problems)
        .into_iter()
        .partition(|p| {
            !options
                .waivers
                .iter()
                .any(|w| w.rule == p.rule && p.operator.as_deref() == Some(w.operator.as_str()))
        });
    report.problems = kept;
    for p in waived {
        let reason = options
            .waivers
            .iter()
            .find(|w| w.rule == p.rule && p.operator.as_deref() == Some(w.operator.as_str()))
            .map(|w| w.reason.clone())
            .unwrap_or_default();
        report
            .waived
            .push(check::WaivedProblem { problem: p, reason });
    }
    Ok(report)
}

/// An install-config that cannot be read, as a problem of the check (named by the file that was
/// looked for, never by what a link points at).
fn problem_unreadable(dir: &Path, e: &config::Error) -> check::Problem {
    let file = match e {
        config::Error::Io { path, .. } => path
            .strip_prefix(dir)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| path.display().to_string()),
        _ => "install-config.yaml".into(),
    };
    let cause = match e {
        config::Error::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    check::Problem {
        file,
        line: 0,
        severity: Severity::Error,
        rule: "unreadable",
        object: None,
        message: format!("not read ({cause}): the install-config rules were not checked"),
        operator: None,
        planned: false,
    }
}

/// The operator whose file `file` (relative to the install directory) is: a po-manifests file
/// name in either folder a run writes (`manifests/`, or `openshift/` for the agent installer).
fn owner(operators: &[String], file: &str) -> Option<String> {
    let name = file
        .strip_prefix("manifests/")
        .or_else(|| file.strip_prefix("openshift/"))?;
    operators
        .iter()
        .filter(|o| name.starts_with(&format!("{}{o}_", output::FILE_PREFIX)))
        .max_by_key(|o| o.len())
        .cloned()
}
