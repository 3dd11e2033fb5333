//! `po-manifests images` and `po-manifests mirror-config`: the images of the resolved
//! operators and the oc-mirror ImageSetConfiguration ([`crate::install::images`]), printed.

use std::io::Write;

use serde::Serialize;

use super::diagnostics::{self, Report, color_stderr};
use super::flags::{DocumentFormat, ImagesArgs, MirrorConfigArgs, OutputFormat};
use super::{EXIT_OK, Error};
use crate::install::Install;
use crate::install::images::{self, PinRule};
use crate::install::outcome::{self, Outcome};
use crate::mirror::{self, Finding};
use crate::registry::MirrorRule;
use crate::resolve::Cluster;

/// Report each operator that did not resolve; `Err` when any did not. An operator that
/// resolved but fails the profile checks (webhooks, install modes) still has images to mirror:
/// its problems are reported as a warning.
fn report_failures(
    inv: &Install,
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

/// What `images` says on stderr of an image listed by tag: a tag can be moved.
const NOT_A_PIN: &str = "tag only, not a pin: the catalog gives this bundle image by tag and its digest could not be looked up (--allow-tags)";

#[derive(Serialize)]
struct UseRow<'a> {
    operator: &'a str,
    role: &'a mirror::Role,
}

#[derive(Serialize)]
struct ImagesDocument<'a> {
    images: Vec<ImageRow<'a>>,
    rules: &'a [MirrorRule],
    findings: &'a [Finding],
}

/// Read the inputs and load the catalogs, saying the install-wide warnings about the target
/// release.
fn resolved(input: &super::flags::InputArgs, stderr: &mut dyn Write) -> Result<Install, Error> {
    let mut inv = Install::read(&input.into(), (&input.network).into())?;
    inv.load_catalogs()?;
    if let Some(cv) = &inv.cluster_version {
        let color = color_stderr();
        for w in crate::install::warnings::for_release(&inv, cv) {
            write!(stderr, "{}", Report::warning(w).render(color))?;
        }
    }
    Ok(inv)
}

/// `po-manifests images`.
pub(super) fn images(
    args: &ImagesArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let inv = resolved(&args.input, stderr)?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    let outcomes = outcome::resolve_for_release(&inv, &cluster);
    report_failures(&inv, &outcomes, stderr)?;
    let rule = PinRule::new(&inv, &(&args.bundle_sources).into(), args.allow_tags)?;
    let check = if args.no_mirror_check {
        Some(false)
    } else if args.mirror_check {
        Some(true)
    } else {
        None
    };
    let found = images::images(&inv, &outcomes, &rule, check)?;
    let grouped = mirror::by_image(&found.uses);
    match args.output {
        OutputFormat::Table | OutputFormat::Wide => {
            // stdout is one reference a line (for `xargs`); what is not a pin is said on stderr.
            for image in grouped.keys() {
                writeln!(stdout, "{image}")?;
            }
            let color = color_stderr();
            for image in grouped.keys().filter(|i| found.not_pins.contains_key(**i)) {
                let report = Report::warning(format!("{image}: {NOT_A_PIN}"));
                write!(stderr, "{}", report.render(color))?;
            }
        }
        format => {
            let doc = ImagesDocument {
                images: grouped
                    .iter()
                    .map(|(image, uses)| ImageRow {
                        image,
                        not_a_pin: found.not_pins.get(*image).map(String::as_str),
                        uses: uses
                            .iter()
                            .map(|u| UseRow {
                                operator: &u.operator,
                                role: &u.role,
                            })
                            .collect(),
                    })
                    .collect(),
                rules: &found.rules,
                findings: &found.findings,
            };
            super::printer::structured(stdout, format, &doc)?;
        }
    }
    if !found.findings.is_empty() {
        return Err(Error::Mirror {
            findings: found.findings,
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
    let inv = resolved(&args.input, stderr)?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    let outcomes = outcome::resolve_for_release(&inv, &cluster);
    report_failures(&inv, &outcomes, stderr)?;
    let rule = PinRule::new(&inv, &(&args.bundle_sources).into(), args.allow_tags)?;
    let releases = match &args.to {
        None => Vec::new(),
        Some(to) => {
            let parse = |flag: &str, text: &str| {
                crate::openshift::ClusterVersion::parse(text)
                    .map_err(|m| Error::Usage(format!("{flag}: {m}")))
            };
            let to = parse("--to", to)?;
            let from = args
                .from
                .as_deref()
                .map(|f| parse("--from", f))
                .transpose()?;
            let input = crate::install::upgrade::GraphInput {
                sources: args.update_graph.clone(),
                channel: args.channel.clone(),
                allow_not_recommended: args.allow_not_recommended,
                eus: false,
            };
            let (releases, notes) = images::platform_releases(&inv, from, &to, &input)?;
            for note in notes {
                writeln!(stderr, "warning: {note}")?;
            }
            releases
        }
    };
    let text = images::mirror_config(&inv, &outcomes, &rule, &releases)?;
    let text = match args.output {
        DocumentFormat::Yaml => text,
        DocumentFormat::Json => as_json(&text, stderr)?,
    };
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

/// The ImageSetConfiguration as JSON. JSON has no comments: the `# not a pin:` notes go to
/// stderr as warnings instead.
fn as_json(yaml: &str, stderr: &mut dyn Write) -> Result<String, Error> {
    for note in yaml.lines().filter_map(|l| l.strip_prefix("# not a pin: ")) {
        writeln!(stderr, "warning: not a pin: {note}")?;
    }
    let value: serde_json::Value = serde_saphyr::from_str(yaml)
        .map_err(|e| Error::Stdout(std::io::Error::other(e.to_string())))?;
    let mut text = super::printer::json(&value)?;
    text.push('\n');
    Ok(text)
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
