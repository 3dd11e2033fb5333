//! `po-manifests check --dir D`, and the same checks inside `create` on what it is about to
//! write together with what `D/manifests` and `D/openshift` already hold.

use std::collections::BTreeMap;
use std::io::Write;

use super::flags::{CheckArgs, OutputFormat};
use super::invocation::Invocation;
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::check::{self, Dir, ManifestFile, Options, Report, Waiver};
use crate::config;
use crate::openshift::ClusterVersion;
use crate::output::{self, lock};
use crate::render::RenderedObject;
use crate::rules::{Role, Severity};

pub(super) fn run(
    args: &CheckArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let dir = &args.dir;
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "--dir {}: not a directory",
            dir.display()
        )));
    }
    let mut roles = BTreeMap::new();
    for r in &args.role {
        let Some((name, role)) = r.split_once('=') else {
            return Err(Error::Usage(format!("--role {r}: expected NAME=ROLE")));
        };
        let role = Role::parse(role).map_err(|m| Error::Usage(format!("--role {r}: {m}")))?;
        roles.insert(name.to_string(), role);
    }
    let install = config::install::read(dir)?;
    let previous = lock::read(&dir.join(lock::LOCK_FILE))?;
    let configured = config::discover(dir, None)
        .ok()
        .and_then(|c| c.cluster_version.map(|v| v.value));
    let version = match &args.cluster_version {
        Some(text) => Some(
            ClusterVersion::parse(text)
                .map_err(|m| Error::Usage(format!("--cluster-version: {m}")))?,
        ),
        None => configured.or_else(|| {
            previous
                .as_ref()
                .and_then(|l| l.cluster_version.as_deref())
                .and_then(|t| ClusterVersion::parse(t).ok())
        }),
    };
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
    };
    let mut report = check::check_dir(dir, &options).map_err(|e| Error::ReadFile {
        path: e.path.clone(),
        source: e.source,
    })?;
    if !dir.join("manifests").is_dir() && !dir.join("openshift").is_dir() {
        report.notes.push(format!(
            "{} has neither manifests/ nor openshift/: nothing to check (run `openshift-install create manifests` first)",
            dir.display()
        ));
    }
    if version.is_none() {
        report.notes.push(format!(
            "no target release given (--cluster-version, or clusterVersion in the configuration or lock file): checked against OpenShift 4.{}",
            options.release.minor
        ));
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
    match args.output {
        OutputFormat::Table => {
            write!(stdout, "{}", report.text())?;
            for w in &report.waived {
                writeln!(
                    stderr,
                    "waived: {} (reason: {})",
                    check::problem_line(&w.problem),
                    w.reason
                )?;
            }
            for n in &report.notes {
                writeln!(stderr, "note: {n}")?;
            }
            let errors = count(&report, Severity::Error);
            let warnings = count(&report, Severity::Warning);
            writeln!(
                stderr,
                "{errors} error{}, {warnings} warning{}",
                plural(errors),
                plural(warnings)
            )?;
        }
        format => super::printer::structured(stdout, format, &report)?,
    }
    Ok(if report.has_errors() {
        EXIT_INVALID
    } else {
        EXIT_OK
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn count(report: &Report, severity: Severity) -> usize {
    report
        .problems
        .iter()
        .filter(|p| p.severity == severity)
        .count()
}

/// The operator whose po-manifests file this is (`manifests/99_po_<operator>_…`).
fn owner(operators: &[String], file: &str) -> Option<String> {
    let name = file.strip_prefix("manifests/")?;
    operators
        .iter()
        .filter(|o| name.starts_with(&format!("{}{o}_", output::FILE_PREFIX)))
        .max_by_key(|o| o.len())
        .cloned()
}

fn install_source(found: &config::install::Found) -> check::InstallSource<'_> {
    let is_install_config = found
        .path
        .file_name()
        .is_some_and(|n| n == "install-config.yaml");
    let path = match (found.path.parent(), found.path.file_name()) {
        (Some(p), Some(n)) if p.file_name().is_some_and(|d| d == "manifests") => {
            format!("manifests/{}", n.to_string_lossy())
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

/// The configured role of an operator.
pub(super) fn role_of(inv: &Invocation, operator: &str) -> Role {
    inv.config
        .operators
        .iter()
        .find(|o| o.name.value == operator && o.bootstrap)
        .map(|o| o.role)
        .unwrap_or_default()
}

/// The lock file's record of an operator's waivers.
pub(super) fn locked_waivers(op: &config::Operator) -> Vec<lock::LockedWaiver> {
    op.waive
        .iter()
        .map(|w| lock::LockedWaiver {
            rule: w.rule.value.clone(),
            reason: w.reason.clone(),
        })
        .collect()
}

/// `create`'s hook: check the files about to be written (bootstrap operators' objects with
/// their roles) together with what `manifests/` and `openshift/` already hold. Errors in the
/// files to be written refuse the run; problems only in other files are printed as warnings
/// (`check` reports them with their own severity). `--explain` lists every problem, waived
/// ones too.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_create(
    inv: &Invocation,
    cluster_version: &ClusterVersion,
    objects: &[RenderedObject],
    files: &[output::ManifestFile],
    explain: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let previous: Vec<String> = lock::read(&inv.lock_path)?
        .map(|l| l.manifests)
        .unwrap_or_default();
    let mut planned: Vec<ManifestFile> = files
        .iter()
        .zip(objects)
        .map(|(f, o)| ManifestFile {
            dir: Dir::Manifests,
            name: f.name.clone(),
            text: String::from_utf8_lossy(&f.bytes).into_owned(),
            size: f.bytes.len() as u64,
            operator: Some(o.operator.clone()),
            role: Some(role_of(inv, &o.operator)),
            planned: true,
        })
        .collect();
    let mut sink_files = Vec::new();
    let mut existing_problems = Vec::new();
    {
        // Files on disk, minus the ones this run replaces.
        let report_dir = check::check_dir_files(&inv.dir).map_err(|e| Error::ReadFile {
            path: e.path.clone(),
            source: e.source,
        })?;
        for f in report_dir.0 {
            let replaced = f.dir == Dir::Manifests
                && (previous.contains(&f.name) || planned.iter().any(|p| p.name == f.name));
            if !replaced {
                sink_files.push(f);
            }
        }
        for p in report_dir.1 {
            let name = p.file.strip_prefix("manifests/").unwrap_or("");
            if !(previous.iter().any(|n| n == name) || planned.iter().any(|f| f.name == name)) {
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
    };
    let mut report = check::check(&planned, &options);
    report.problems.extend(existing_problems);
    report.problems.sort();
    let color = super::create::color_stderr();
    let mut errors = 0;
    for p in &report.problems {
        let ours = p.planned || p.operator.is_some();
        let line = check::problem_line(p);
        if p.severity == Severity::Error && ours {
            errors += 1;
            write!(
                stderr,
                "{}",
                super::diagnostics::Report::message(line).render(color)
            )?;
        } else if p.severity == Severity::Error {
            writeln!(
                stderr,
                "warning: {line} (not written by po-manifests; `po-manifests check` reports it as an error)"
            )?;
        } else {
            writeln!(stderr, "warning: {line}")?;
        }
    }
    if explain {
        writeln!(
            stdout,
            "# check: {} problem(s), {} waived",
            report.problems.len(),
            report.waived.len()
        )?;
        for p in &report.problems {
            writeln!(stdout, "{}", check::problem_line(p))?;
        }
        for w in &report.waived {
            writeln!(
                stdout,
                "waived: {} (reason: {})",
                check::problem_line(&w.problem),
                w.reason
            )?;
        }
    }
    if errors > 0 {
        return Err(Error::Check {
            errors,
            create: true,
        });
    }
    Ok(())
}
