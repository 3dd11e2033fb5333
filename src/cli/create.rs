//! `po-manifests create`: flags → [`Install`] → [`plan::plan`] → write, all or nothing, and
//! what happened printed.

use std::io::Write;

use super::Error;
use super::flags::CreateArgs;
use crate::install::Install;
use crate::install::plan::{self, BundleContent, Settings};
use crate::render::Templates;

pub(super) fn run(
    args: &CreateArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let mut inv = Install::read(&(&args.input).into(), (&args.input.network).into())?;
    inv.locked = args.locked;
    if let Some(installer) = args.installer {
        inv.installer = installer;
    }
    inv.force = args.force;
    // Held until this function returns: one writing run per install directory.
    let _held = super::lock_install_dir(&inv, args.no_wait, stderr)?;
    let Some(cluster_version) = inv.cluster_version.clone() else {
        return Err(Error::Usage(
            "the target cluster version is not set: add `clusterVersion` to platformOperators or pass --cluster-version"
                .into(),
        ));
    };
    // The profile depends only on the release and feature set: refuse before reading catalogs.
    inv.profile_for(&cluster_version)?;
    let templates = Templates::load(args.templates.as_deref())?;
    let progress = super::progress::Progress::new(args.input.quiet);
    progress.stage(&format!("loading {} catalog(s)", inv.config.catalogs.len()));
    inv.load_catalogs()?;
    progress.stage(&format!(
        "resolving {} operator(s)",
        inv.config.operators.len()
    ));
    let content =
        BundleContent::for_install(&inv, &(&args.bundle_sources).into(), args.allow_tags)?;
    let plan = plan::plan(
        &inv,
        &Settings {
            cluster_version: &cluster_version,
            templates: &templates,
            mirror_check: !args.no_mirror_check,
            content: &content,
        },
    )?;
    // The line stays through checking, converting, pulling and writing; what is printed
    // meanwhile goes around it.
    let (mut stdout, mut stderr) = (progress.writer(stdout), progress.writer(stderr));
    super::plan_report::write_plan(
        &inv,
        plan,
        args.input.explain,
        args.output,
        args.allow_unchecked,
        &mut stdout,
        &mut stderr,
    )
}
