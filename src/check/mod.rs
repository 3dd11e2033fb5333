//! Check: an installer directory's `manifests/` and `openshift/` (anyone's files, or what
//! `create` is about to write together with what is there) against the rules cluster-bootstrap
//! and the installer impose, plus the readiness rules for bootstrap operators (cloud controller
//! managers, Machine API controllers) and the install-config `platform.external` rules.
//!
//! Input: [`ManifestFile`]s (path, text, owning operator and role) and [`Options`] (release,
//! install-config, roles, waivers). Output: a sorted list of [`Problem`]s, each naming the file,
//! the line of the field, the object, the rule and its severity. The rules are data
//! ([`crate::rules::RULES`], a layer below, which the configuration reads too to check its
//! waivers); what the release provides is data too (`openshift.yaml`, read by [`Provided`]).
//! Source of truth: `reference/bootstrap-operators.md`.

pub mod files;
mod objects;
mod olm;
pub mod readiness;
mod schema;
pub mod yaml;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

pub use crate::openshift::provided::Provided;

use crate::config::install::InstallConfig;
use crate::rules::{self, Installer, Role, Severity};

/// The label po-manifests puts on a bootstrap operator's workloads to record its role, so that a
/// later `check` can tell which rules apply.
pub const ROLE_LABEL: &str = "po-manifests.openshift.io/role";

/// What the Agent-based installer does to the files of `openshift/` (openshift/installer
/// `pkg/asset/agent/image/ignition.go`, `addExtraManifests`), said once per check.
pub const AGENT_RESERIALIZES: &str = "the Agent-based installer writes each document of openshift/*.yaml and *.yml as /etc/assisted/extra-manifests/NAME-N.EXT (N from 0, one document alone too), decoded and marshalled again: keys sorted, comments and needless quotes dropped, numbers read as 64-bit floats; the objects land, not these bytes (the lock file's `lands:` names each landed file with the digest of its object)";

/// Which of the installer's two manifest directories a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Dir {
    /// `manifests/`: every file is put into the bootstrap ignition.
    Manifests,
    /// `openshift/`: only `*.yaml`, `*.yml` and `*.json` are read.
    Openshift,
}

impl Dir {
    /// The directory's name.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Manifests => "manifests",
            Dir::Openshift => "openshift",
        }
    }
}

/// One file to check.
#[derive(Debug, Clone)]
pub struct ManifestFile {
    /// The directory it is in.
    pub dir: Dir,
    /// The file name.
    pub name: String,
    /// Its text.
    pub text: String,
    /// Size in bytes.
    pub size: u64,
    /// The operator that writes it (config `name`), when known.
    pub operator: Option<String>,
    /// That operator's role, when known.
    pub role: Option<Role>,
    /// Not on disk yet: `create` is about to write it.
    pub planned: bool,
}

impl ManifestFile {
    /// `manifests/NAME` or `openshift/NAME`.
    pub fn path(&self) -> String {
        format!("{}/{}", self.dir.name(), self.name)
    }
}

/// A rule waived for one operator's objects, with the reason (config `waive:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiver {
    /// The operator (config `name`).
    pub operator: String,
    /// The rule id.
    pub rule: String,
    /// Why.
    pub reason: String,
}

/// What the checks need besides the files.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    /// What the target release provides.
    pub release: Provided,
    /// install-config facts, with the file they came from and its text (for lines).
    pub install: Option<InstallSource<'a>>,
    /// Roles by workload: `NAME` or `NAMESPACE/NAME` (`check --role`).
    pub roles: BTreeMap<String, Role>,
    /// Waived rules.
    pub waivers: Vec<Waiver>,
    /// The installer that reads the directory (which files, and how a file becomes objects).
    pub installer: Installer,
    /// `--follow-links`: `manifests/` and `openshift/` are read where they are symbolic links
    /// out of the directory ([`crate::fsread::own_folder`]); otherwise such a folder is one
    /// `unreadable` problem.
    pub follow_links: bool,
}

/// install-config as read, for the install-config rules.
#[derive(Debug, Clone)]
pub struct InstallSource<'a> {
    /// The facts.
    pub config: &'a InstallConfig,
    /// Where they were read (shown in problems).
    pub path: String,
    /// The file's text, when it is install-config.yaml itself (for line numbers).
    pub text: Option<String>,
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// `manifests/NAME`, `openshift/NAME` or the install-config path.
    pub file: String,
    /// 1-based line of the field (0 when the whole file is meant).
    pub line: usize,
    /// Severity.
    pub severity: Severity,
    /// The rule id.
    pub rule: &'static str,
    /// `Kind namespace/name`, when the problem is about an object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The operator whose file it is, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// The file is not on disk yet (`create` is about to write it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub planned: bool,
}

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Problems, sorted by file, line and rule.
    pub problems: Vec<Problem>,
    /// Problems a waiver removed, with the waiver's reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waived: Vec<WaivedProblem>,
    /// Notes on what could not be checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A problem a waiver removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaivedProblem {
    /// The problem.
    pub problem: Problem,
    /// The waiver's reason.
    pub reason: String,
}

impl Report {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// One line per problem: `FILE:LINE: SEVERITY[RULE] OBJECT: MESSAGE`, control characters
    /// (from file names and file content) escaped but for the line breaks of the messages that
    /// have several lines.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.problems {
            let line = problem_line(p);
            let lines: Vec<_> = line.split('\n').map(crate::text::printable).collect();
            out.push_str(&lines.join("\n"));
            out.push('\n');
        }
        out
    }
}

/// `FILE:LINE: SEVERITY[RULE] OBJECT: MESSAGE` (the line is left out when unknown).
pub fn problem_line(p: &Problem) -> String {
    let place = if p.line > 0 {
        format!("{}:{}", p.file, p.line)
    } else {
        p.file.clone()
    };
    let object = p
        .object
        .as_ref()
        .map(|o| format!(" {o}:"))
        .unwrap_or_default();
    let planned = if p.planned { " (to be written)" } else { "" };
    format!(
        "{place}{planned}: {}[{}]{object} {}",
        p.severity, p.rule, p.message
    )
}

/// A rule's severity from the table (every id the checks use is in it; a test holds them to
/// that, and an unknown one counts as an error rather than stopping the run).
fn severity_of(id: &str) -> Severity {
    debug_assert!(rules::rule(id).is_some(), "rule {id} is in the table");
    rules::rule(id)
        .map(|r| r.severity)
        .unwrap_or(Severity::Error)
}

/// Gathers problems as rules find them.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    problems: Vec<Problem>,
}

impl Sink {
    /// Record a breach of rule `id` at `file:line`.
    pub(crate) fn push(
        &mut self,
        id: &'static str,
        file: &ManifestFile,
        line: usize,
        object: Option<String>,
        message: String,
    ) {
        self.push_as(id, severity_of(id), file, line, object, message);
    }

    /// Record rule `id` at `file:line` with another severity than the table's (a rule that is
    /// an error for one installer and a note for another).
    pub(crate) fn push_as(
        &mut self,
        id: &'static str,
        severity: Severity,
        file: &ManifestFile,
        line: usize,
        object: Option<String>,
        message: String,
    ) {
        self.problems.push(Problem {
            file: file.path(),
            line,
            severity,
            rule: id,
            object,
            message,
            operator: file.operator.clone(),
            planned: file.planned,
        });
    }

    /// Record a breach located in install-config.
    pub(crate) fn push_install(
        &mut self,
        id: &'static str,
        install: &InstallSource<'_>,
        pointer: &str,
        message: String,
    ) {
        let line = install
            .text
            .as_deref()
            .and_then(|t| yaml::parse(t).ok())
            .and_then(|d| d.into_iter().next())
            .map(|d| d.line(pointer))
            .unwrap_or(0);
        self.problems.push(Problem {
            file: install.path.clone(),
            line,
            severity: severity_of(id),
            rule: id,
            object: None,
            message,
            operator: None,
            planned: false,
        });
    }
}

/// Check a set of files: file rules, object rules, readiness rules, install-config rules; then
/// apply waivers.
pub fn check(files: &[ManifestFile], options: &Options<'_>) -> Report {
    let mut sink = Sink::default();
    let mut notes = Vec::new();
    if let Some(newest) = &options.release.newer_than_known {
        notes.push(format!(
            "the target release is newer than the release data knows; read as {newest}"
        ));
    }
    let objects = files::objects(files, options.installer, &mut sink);
    let set = objects::ObjectSet::new(&objects, &options.release);
    objects::check(&set, options, &mut sink);
    olm::check(&set, &mut sink);
    readiness::check(&set, options, &mut sink);
    if options.install.is_none() {
        notes.push("no install-config found: the install-config rules were not checked".into());
    }
    if options.installer == Installer::Agent && files.iter().any(|f| f.dir == Dir::Openshift) {
        notes.push(AGENT_RESERIALIZES.into());
    }
    let mut problems = sink.problems;
    problems.sort();
    problems.dedup();
    let mut report = Report {
        notes,
        ..Report::default()
    };
    for p in problems {
        let waiver = options
            .waivers
            .iter()
            .find(|w| w.rule == p.rule && p.operator.as_deref() == Some(w.operator.as_str()));
        match waiver {
            Some(w) => report.waived.push(WaivedProblem {
                problem: p,
                reason: w.reason.clone(),
            }),
            None => report.problems.push(p),
        }
    }
    report
}

/// Read `dir/manifests` and `dir/openshift` as `options.installer` reads them and check them.
/// An entry that cannot be read (not a regular file, a link out of `dir`, a name that is not
/// UTF-8) is a problem of its own; nothing out of `dir` is followed.
pub fn check_dir(dir: &Path, options: &Options<'_>) -> Result<Report, files::Error> {
    let mut sink = Sink::default();
    let files = files::read_dir(dir, options.installer, options.follow_links, &mut sink)?;
    let mut report = check(&files, options);
    report.problems.extend(sink.problems);
    report.problems.sort();
    Ok(report)
}

/// The files of `dir/manifests` and `dir/openshift` the installer reads, with the problems of the
/// ones it cannot use (for `create`, which checks them together with what it writes).
pub fn check_dir_files(
    dir: &Path,
    installer: Installer,
    follow_links: bool,
) -> Result<(Vec<ManifestFile>, Vec<Problem>), files::Error> {
    let mut sink = Sink::default();
    let files = files::read_dir(dir, installer, follow_links, &mut sink)?;
    Ok((files, sink.problems))
}

/// A JSON object's string field.
pub(crate) fn str_at<'v>(v: &'v Value, pointer: &str) -> Option<&'v str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// A JSON pointer as a field path: `/spec/containers/0/image` → `spec.containers[0].image`.
pub(crate) fn pointer_field(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

#[cfg(test)]
mod tests;
