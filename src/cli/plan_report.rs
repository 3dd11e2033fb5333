//! Printing an install plan ([`crate::install::plan`]): each operator's warnings, candidate
//! table (`--explain`) and refusal, the check of the planned files, and the files written.
//! Shared by `create`, `resolve` and `upgrade-plan --write`, so they report alike.

use std::io::Write;

use super::diagnostics::{self, Report, color_stderr};
use super::flags::OutputFormat;
use super::{EXIT_OK, Error};
use crate::bundle::source::MissingOffline;
use crate::check;
use crate::install::Install;
use crate::install::outcome::Outcome;
use crate::install::plan::{Plan, Refusal, Written};
use crate::output::{EditedFile, lock};
use crate::resolve::explain;
use crate::table::Width;
use crate::text;

/// Print what the plan found, in the order `create` finds it: the install-wide warnings; per
/// operator its warnings, its
/// candidate table (with `explain`, fitted to its width, on `stdout`) and its refusal; then the render refusals, each
/// distinct message once with every operator it applies to (without those that are only
/// unreachable content when `quiet_unreachable`); then the problems of the planned files.
pub fn print_plan(
    inv: &Install,
    plan: &Plan<'_>,
    explain: Option<Width>,
    quiet_unreachable: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let color = color_stderr();
    for n in &plan.notes {
        writeln!(stderr, "note: {}", text::printable(n))?;
    }
    for w in &plan.warnings {
        write!(stderr, "{}", Report::warning(w.clone()).render(color))?;
    }
    let mut pending: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut missing: Vec<(&MissingOffline, Vec<&str>)> = Vec::new();
    for op in &plan.operators {
        let outcome = &op.outcome;
        for report in diagnostics::operator_warnings(outcome) {
            write!(stderr, "{}", report.render(color))?;
        }
        if let Some(width) = explain {
            write_explain(stdout, outcome, width)?;
        }
        match &op.refusal {
            Some(Refusal::Resolution) => {
                if let Some(report) = diagnostics::operator_failure(&inv.config.source, outcome) {
                    write!(stderr, "{}", report.render(color))?;
                }
            }
            Some(Refusal::Ownership(message)) => {
                write!(stderr, "{}", Report::message(message.clone()).render(color))?;
            }
            Some(Refusal::Render {
                missing: Some(image),
                ..
            }) => {
                let name = outcome.operator.name.value.as_str();
                match missing.iter_mut().find(|(m, _)| m.image == image.image) {
                    Some((_, names)) => names.push(name),
                    None => missing.push((image, vec![name])),
                }
            }
            Some(Refusal::Render {
                message,
                unreachable,
                ..
            }) if !(*unreachable && quiet_unreachable) => {
                let name = outcome.operator.name.value.as_str();
                match pending.iter_mut().find(|(m, _)| *m == message) {
                    Some((_, names)) => names.push(name),
                    None => pending.push((message, vec![name])),
                }
            }
            Some(Refusal::Render { .. }) | None => {}
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
    if !missing.is_empty() {
        write!(stderr, "{}", missing_offline(&missing).render(color))?;
    }
    if let Some(file_check) = &plan.file_check {
        print_file_check(&file_check.report, explain.is_some(), stdout, stderr)?;
    }
    Ok(())
}

/// Where the `skopeo copy` lines of [`missing_offline`] put the images when no `--oci-layout`
/// was given (or none `oci:` can name: its path may not hold a `:`).
const LAYOUT_DIR: &str = "bundle-images";

/// The bundle images `--offline` kept out, said once for every operator: one list, each image
/// with the operators that need it, and a ready `skopeo copy` line for each. The lines write
/// every image into one OCI layout (the first `--oci-layout` given, else [`LAYOUT_DIR`]) that
/// `--oci-layout` then reads: `--preserve-digests` keeps the manifest as the registry serves
/// it (skopeo would otherwise convert a Docker manifest to OCI, and the digest the catalog pins
/// would not be in the layout), `--all` keeps a multi-platform image's index, which is what
/// such a digest names, and the reference as the layout's name for the image finds a
/// reference without a digest.
fn missing_offline(missing: &[(&MissingOffline, Vec<&str>)]) -> Report {
    let given = missing[0]
        .0
        .layouts
        .iter()
        .map(|l| l.display().to_string())
        .find(|l| !l.contains(':'));
    let dir = given.clone().unwrap_or_else(|| LAYOUT_DIR.to_string());
    let (count, they) = match missing.len() {
        1 => ("1 bundle image is".to_string(), "it"),
        n => (format!("{n} bundle images are"), "them"),
    };
    let images = missing
        .iter()
        .map(|(m, names)| {
            format!(
                "  {} (operator{} {})",
                text::printable(&m.image),
                if names.len() == 1 { "" } else { "s" },
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let copies = missing
        .iter()
        .map(|(m, _)| {
            format!(
                "  skopeo copy --all --preserve-digests {} {}",
                text::shell_word(&format!("docker://{}", m.image)),
                text::shell_word(&format!("oci:{dir}:{}", m.image))
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let then = match &given {
        Some(dir) => format!(
            "copy {they} into the OCI layout {} that --oci-layout reads, then run again",
            text::printable(dir)
        ),
        None => format!(
            "copy {they} into an OCI layout, then run again with `--oci-layout {}`",
            text::shell_word(&dir)
        ),
    };
    Report::message(format!(
        "{count} in neither the cache ({}) nor any --oci-layout, and --offline forbids pulling {they}:\n{images}",
        text::printable(&missing[0].0.cache.display().to_string())
    ))
    .help(format!(
        "{then}:\n{copies}\n(or run once without --offline with the same --cache-dir, or pass the unpacked bundles with --bundles)"
    ))
}

/// The problems of the planned files: errors in files po-manifests writes as errors, the rest
/// as warnings; `explain` lists every problem on `stdout`, waived ones too.
fn print_file_check(
    report: &check::Report,
    explain: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let color = color_stderr();
    for p in &report.problems {
        let line = check::problem_line(p);
        if crate::install::files::FileCheck::refuses(p) {
            let mut report = Report::message(line);
            if let Some(help) = waive_help(p) {
                report = report.help(help);
            }
            write!(stderr, "{}", report.render(color))?;
        } else if p.severity == crate::rules::Severity::Error {
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
    Ok(())
}

/// How to waive a refusing problem in an operator's files, when it is known to be safe: the
/// operator's `waive:` entry (every check rule can be waived for one operator's objects, with
/// a reason the lock file records).
fn waive_help(p: &check::Problem) -> Option<String> {
    let operator = p.operator.as_deref()?;
    Some(format!(
        "if this is known to be safe, {}",
        crate::install::files::FileCheck::waive_hint(operator, &[p.rule])
    ))
}

/// Print the plan, then write it (all or nothing) and list what was written: the second half
/// of `create`, shared with `upgrade-plan --write`. What could not be checked
/// ([`Install::unchecked`]) is named; without `allow_unchecked` nothing is written then.
pub fn write_plan(
    inv: &Install,
    plan: Plan<'_>,
    explain: bool,
    output: OutputFormat,
    allow_unchecked: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let explain = explain.then(|| output.width());
    print_plan(inv, &plan, explain, false, stdout, stderr)?;
    let unchecked = inv.unchecked();
    print_unchecked(&unchecked, allow_unchecked, stderr)?;
    let staged = plan.into_staged()?;
    if !unchecked.is_empty() && !allow_unchecked {
        return Err(Error::Unchecked {
            count: unchecked.len(),
            writes: true,
        });
    }
    if explain.is_some() {
        write_edits(inv, &staged.edited(inv)?, stdout)?;
    }
    let written = staged.write(inv, inv.locked)?;
    print_written(inv, &written, output, stdout, stderr)?;
    Ok(EXIT_OK)
}

/// Name each check that could not run: a warning with `allowed` (`--allow-unchecked`), else an
/// error with the way out.
pub fn print_unchecked(
    unchecked: &[String],
    allowed: bool,
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let color = color_stderr();
    for u in unchecked {
        let report = if allowed {
            Report::warning(format!("not checked: {u}"))
        } else {
            Report::message(format!("not checked: {u}")).help(
                "give the install-config (or run where `openshift-install create manifests` left manifests/cluster-config.yaml), or pass --allow-unchecked to accept",
            )
        };
        write!(stderr, "{}", report.render(color))?;
    }
    Ok(())
}

/// List the files written and removed (`-o json|yaml`: with the lock summary).
fn print_written(
    inv: &Install,
    written: &Written,
    output: OutputFormat,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), Error> {
    let Written {
        manifests_dir,
        files,
        lock: new_lock,
        lock_written,
    } = written;
    if !output.is_text() {
        super::printer::structured(
            stdout,
            output,
            &WrittenDocument {
                written: files
                    .written
                    .iter()
                    .map(|n| manifests_dir.join(n).display().to_string())
                    .collect(),
                removed: files
                    .removed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
                left: files.left.iter().map(|p| p.display().to_string()).collect(),
                lock_file: inv.lock_path.display().to_string(),
                cluster_version: new_lock.cluster_version.clone(),
                profile: new_lock.profile.clone(),
                operators: &new_lock.operators,
            },
        )?;
    }
    for name in &files.written {
        if output.is_text() {
            writeln!(stdout, "{}", manifests_dir.join(name).display())?;
        }
    }
    for path in &files.removed {
        writeln!(
            stderr,
            "removed {} (written by an earlier run, no longer needed)",
            path.display()
        )?;
    }
    if !files.left.is_empty() {
        writeln!(
            stderr,
            "{}",
            left_warning(&inv.lock_path, &files.left, *lock_written)
        )?;
    }
    if let Some(why) = &files.fallback {
        writeln!(
            stderr,
            "note: {}; wrote manifests/ file by file under the journal instead: a run killed meanwhile leaves a mix of old and new files until the next run recovers",
            text::printable(why)
        )?;
    }
    if *lock_written {
        writeln!(
            stderr,
            "wrote {} manifests and {}",
            files.written.len(),
            inv.lock_path.display()
        )?;
    } else {
        writeln!(
            stderr,
            "wrote {} manifests; {} is unchanged (--locked)",
            files.written.len(),
            inv.lock_path.display()
        )?;
    }
    Ok(())
}

/// The warning about the files a version 1 lock names that nothing shows po-manifests wrote,
/// left in place (said once, naming them all).
fn left_warning(lock: &std::path::Path, left: &[std::path::PathBuf], lock_written: bool) -> String {
    let (it, they_are) = if left.len() == 1 {
        ("it", "it is")
    } else {
        ("them", "they are")
    };
    let (label, value) = crate::output::MANAGED_BY;
    let files = left
        .iter()
        .map(|p| text::printable(&p.display().to_string()).into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    let later = if lock_written {
        format!(" The new lock no longer names {it}, so later runs leave {it} alone too.")
    } else {
        String::new()
    };
    format!(
        "warning: {files}: named by the lock file {}, but without the `{label}: {value}` label or po-manifests' first line, so nothing shows that po-manifests wrote {it} (the lock's word is no proof: a version 1 lock records names only, and a digest shows only what a file holds); left in place.{later} Delete {it} by hand if po-manifests wrote {it} and {they_are} no longer needed (with --force, create removes such files instead)",
        lock.display()
    )
}

/// `--explain`: a unified diff of each manifest an earlier run wrote that was edited since,
/// from what it holds now to what `create` would write (nothing, when it would remove it).
fn write_edits(inv: &Install, edits: &[EditedFile], out: &mut dyn Write) -> Result<(), Error> {
    for e in edits {
        let path = e.path.display().to_string();
        let path = text::printable(&path);
        writeln!(
            out,
            "# edited since po-manifests wrote it: {path}{}",
            if inv.force {
                " (--force: overwritten)"
            } else {
                " (create refuses to overwrite it without --force)"
            }
        )?;
        let Some(now) = &e.now else {
            writeln!(
                out,
                "{path} is no longer a regular file po-manifests can read"
            )?;
            continue;
        };
        let now = String::from_utf8_lossy(now);
        let new = e
            .new
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let to = if e.new.is_some() {
            format!("{path} (create would write)")
        } else {
            "/dev/null (create would remove it)".to_string()
        };
        let diff = similar::TextDiff::from_lines(now.as_ref(), new.as_ref());
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&format!("{path} (edited)"), &to)
            .to_string();
        // The file is the user's and may hold anything: each line escaped for the terminal.
        for line in text.lines() {
            writeln!(out, "{}", text::printable(line))?;
        }
    }
    Ok(())
}

/// `create -o json|yaml`: the files written, removed and left in place (only when there are
/// any), and the lock summary.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct WrittenDocument<'a> {
    written: Vec<String>,
    removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    left: Vec<String>,
    lock_file: String,
    cluster_version: Option<String>,
    profile: Option<String>,
    operators: &'a [lock::LockedOperator],
}

/// `--explain`: the candidate table for one operator.
pub fn write_explain(
    out: &mut dyn Write,
    outcome: &Outcome<'_>,
    width: Width,
) -> std::io::Result<()> {
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
        write!(out, "{}", explain::table(candidates, width))?;
    }
    writeln!(out)
}
