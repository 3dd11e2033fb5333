//! `po-manifests bundle render`: a registry+v1 bundle (a directory, a bundle image, or a
//! bundle embedded in a catalog) converted into the plain objects OLM v1 would create, one
//! object per file; `po-manifests bundle pull`: one bundle image unpacked into a directory.
//! [`sources`] builds the bundle content sources that `create` uses too.
//!
//! `bundle render --catalog PATH --all` renders every bundle of a catalog in one process, on
//! every core (the catalog is read once), each into its own `OUTPUT_DIR/<bundle>/`.

use std::io::Write;
use std::path::Path;

use super::flags::{BundleCommand, BundlePullArgs, BundleRenderArgs};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::bundle::RegistryV1;
use crate::catalog::{self, PackageFilter};
use crate::config::install;
use crate::convert;
use crate::output::yaml;
use rayon::prelude::*;

pub(super) fn run(
    command: &BundleCommand,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    match command {
        BundleCommand::Render(args) => render(args, stdout, stderr),
        BundleCommand::Pull(args) => pull(args, stdout, stderr),
    }
}

fn read_install(dir: Option<&Path>) -> Result<Option<install::Found>, Error> {
    match dir {
        Some(d) => Ok(install::read(d)?),
        None => Ok(None),
    }
}

/// Whether a positional argument names an image rather than a directory.
fn is_image_reference(text: &str) -> bool {
    !Path::new(text).exists()
        && crate::registry::ImageRef::parse(text).is_ok()
        && text.contains('/')
}

fn pull(
    args: &BundlePullArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    if !args.sources.bundles.is_empty() {
        return Err(Error::Usage(
            "--bundles does not apply to `bundle pull`: it unpacks an image".into(),
        ));
    }
    let install = read_install(args.dir.as_deref())?;
    let sources = crate::install::sources::sources(
        &(&args.sources).into(),
        &(&args.network).into(),
        install.as_ref(),
    )?;
    let progress = super::progress::Progress::new(args.quiet);
    progress.stage(&format!("looking for {}", args.image));
    // Loaded as `create` loads it: an image that is not a registry+v1 bundle (no CSV, say after
    // whiteouts) is refused, exit 1, and not kept in the cache.
    let loaded = sources
        .load(&crate::bundle::source::Request {
            image: &args.image,
            name: None,
            package: None,
        })
        .map_err(|e| Error::BundleSource(Box::new(e)))?;
    drop(progress);
    let crate::bundle::source::Origin::Image(unpacked) = loaded.origin else {
        return Err(Error::Bundle(format!(
            "{} was not unpacked from an image",
            args.image
        )));
    };
    let mut files = Vec::new();
    for sub in ["manifests", "metadata"] {
        let dir = unpacked.dir.join(sub);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        names.sort();
        for path in names {
            if !path.is_file() {
                continue;
            }
            let text = crate::fsread::read_to_string(&path, crate::fsread::BUNDLE_FILE_LIMIT, None)
                .map_err(|source| Error::ReadFile {
                    path: path.clone(),
                    source,
                })?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((format!("{sub}/{name}"), text));
        }
    }
    write_dir(&args.output_dir, &files)?;
    for (name, _) in &files {
        writeln!(stdout, "{}", args.output_dir.join(name).display())?;
    }
    writeln!(
        stderr,
        "unpacked {} ({}) from {} into {}",
        args.image,
        unpacked.digest,
        unpacked.origin,
        args.output_dir.display()
    )?;
    Ok(EXIT_OK)
}

fn load(args: &BundleRenderArgs) -> Result<RegistryV1, Error> {
    if let Some(dir) = &args.bundle_dir {
        if let Some(image) = dir.to_str().filter(|t| is_image_reference(t)) {
            let install = read_install(args.dir.as_deref())?;
            let sources = crate::install::sources::sources(
                &(&args.sources).into(),
                &(&args.network).into(),
                install.as_ref(),
            )?;
            let loaded = sources
                .load(&crate::bundle::source::Request {
                    image,
                    name: None,
                    package: None,
                })
                .map_err(|e| Error::BundleSource(Box::new(e)))?;
            return Ok(loaded.bundle);
        }
        return RegistryV1::from_dir(dir).map_err(|e| Error::Bundle(crate::error_chain(&e)));
    }
    let (Some(path), Some(name)) = (&args.catalog, &args.bundle) else {
        return Err(Error::Usage(
            "give a bundle directory, or --catalog PATH with --bundle NAME or --all".into(),
        ));
    };
    let catalog = catalog::load(path, &PackageFilter::All).map_err(|e| Error::Catalog {
        name: path.display().to_string(),
        location: path.display().to_string(),
        source: Box::new(e),
    })?;
    let bundle = catalog
        .packages
        .iter()
        .find_map(|p| p.bundle(name))
        .ok_or_else(|| Error::Usage(format!("no bundle named \"{name}\" in {}", path.display())))?;
    let install = read_install(args.dir.as_deref())?;
    let sources = crate::install::sources::sources(
        &(&args.sources).into(),
        &(&args.network).into(),
        install.as_ref(),
    )?;
    let loaded = sources
        .load_catalog_bundle(bundle)
        .map_err(|e| Error::BundleSource(Box::new(e)))?;
    Ok(loaded.bundle)
}

/// The target release's OLM v1 and the conversion options for `args` (`--cluster-version`,
/// `--feature-set`, `--namespace`, `--watch-namespace`); a watch namespace the release ignores
/// is refused.
fn render_options(
    args: &BundleRenderArgs,
    stderr: &mut dyn Write,
) -> Result<(crate::openshift::OlmV1, convert::Options), Error> {
    let target = render_target(args)?;
    let olm = target.olm_v1().ok_or_else(|| {
        Error::Unsupported(format!(
            "OpenShift {} does not run OLM v1; bundle render follows OLM v1 (4.18 or later)",
            target.release.name
        ))
    })?;
    if let Some(w) = target.release.newer_warning() {
        writeln!(stderr, "warning: {w}")?;
    }
    let mut watch = args.watch_namespace.as_deref().filter(|ns| !ns.is_empty());
    if let Some(w) = watch
        && olm.watch_namespace.is_none()
    {
        // What that release's OLM v1 creates: its manifest provider skips the watch-namespace
        // configuration, so a bundle that supports AllNamespaces is installed for all
        // namespaces and one that does not is refused (create refuses the configured
        // watchNamespace itself: the user asked for what the cluster will not do).
        writeln!(
            stderr,
            "warning: OpenShift {} with featureSet {} ignores a watch namespace (its OLM v1 installs for all namespaces only): --watch-namespace {} is ignored, and these are the objects of the AllNamespaces install it makes{}",
            target.release.name,
            target.feature_set,
            crate::text::printable(w),
            crate::openshift::Release::where_it_holds(|o| o.watch_namespace.is_some())
                .map(|w| format!("; a watch namespace is honoured on {w}"))
                .unwrap_or_default()
        )?;
        watch = None;
    }
    let mut options = convert::Options::for_olm_v1(&olm, &args.namespace);
    options.target_namespaces = watch.map(|ns| vec![ns.to_string()]).unwrap_or_default();
    Ok((olm, options))
}

/// One bundle's objects as `(file name, YAML)`, converted as `olm` does; a refusal for want of a
/// watch namespace says how to give one.
fn object_files(
    content: RegistryV1,
    olm: &crate::openshift::OlmV1,
    options: &convert::Options,
) -> Result<Vec<(String, String)>, Error> {
    let objects = convert::convert_owned(content, options).map_err(|e| {
        let mut text = crate::error_chain(&e);
        if options.target_namespaces.is_empty()
            && matches!(
                e,
                convert::Error::TargetNamespaces {
                    problem: convert::TargetNamespacesProblem::AllNamespaces,
                    ..
                }
            )
        {
            text.push_str(if olm.watch_namespace.is_some() {
                "; give --watch-namespace NS (the install namespace for OwnNamespace, another one for SingleNamespace)"
            } else {
                "; this release installs it only with a watch namespace, which needs a release and featureSet that honour one (--cluster-version, --feature-set TechPreviewNoUpgrade)"
            });
        }
        Error::Bundle(text)
    })?;
    let mut files = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        let text = yaml::to_yaml(object).map_err(Error::Bundle)?;
        files.push((convert::object_file_name(i, object), text));
    }
    Ok(files)
}

/// Why a bundle's name cannot be a directory under `--output-dir`, if it cannot: the name
/// comes from the catalog, so it must not climb out of the output directory.
fn unusable_dir_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("its name is empty")
    } else if name == "." || name == ".." || name.starts_with(".po-manifests-render-") {
        Some("its name is not usable as a directory name")
    } else if name.contains(['/', '\\', '\0']) {
        Some("its name contains a path separator or NUL")
    } else {
        None
    }
}

/// `bundle render --catalog PATH --all [--package P]…`.
fn render_all(
    args: &BundleRenderArgs,
    path: &Path,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let filter = if args.packages.is_empty() {
        PackageFilter::All
    } else {
        PackageFilter::Only(args.packages.clone())
    };
    let catalog = catalog::load(path, &filter).map_err(|e| Error::Catalog {
        name: path.display().to_string(),
        location: path.display().to_string(),
        source: Box::new(e),
    })?;
    for p in &args.packages {
        if catalog.package(p).is_none() {
            return Err(Error::Usage(format!(
                "package \"{p}\" is not in {}",
                path.display()
            )));
        }
    }
    let out = &args.output_dir;
    // One staging directory for the whole tree, renamed into place at the end: `OUT`
    // appears with every rendered bundle or not at all.
    let stage = stage_beside(out)?;
    let install = read_install(args.dir.as_deref())?;
    let sources = crate::install::sources::sources(
        &(&args.sources).into(),
        &(&args.network).into(),
        install.as_ref(),
    )?;
    let (olm, options) = render_options(args, stderr)?;
    let bundles: Vec<&catalog::model::Bundle> = catalog
        .packages
        .iter()
        .flat_map(|p| p.bundles.iter())
        .collect();
    // The first bundle of a name gets the directory; a later one of the same name (in
    // another package) is refused rather than overwriting it.
    let mut first_of_name = std::collections::HashMap::new();
    for (i, b) in bundles.iter().enumerate() {
        first_of_name.entry(b.name.as_str()).or_insert(i);
    }
    let render_one = |i: usize, bundle: &catalog::model::Bundle| -> Result<usize, String> {
        if let Some(why) = unusable_dir_name(&bundle.name) {
            return Err(why.to_owned());
        }
        let first = first_of_name[bundle.name.as_str()];
        if first != i {
            return Err(format!(
                "package {} has a bundle of the same name",
                bundles[first].package
            ));
        }
        let loaded = sources
            .load_catalog_bundle(bundle)
            .map_err(|e| crate::error_chain(&e))?;
        let files = object_files(loaded.bundle, &olm, &options).map_err(|e| e.to_string())?;
        let dir = stage.path().join(&bundle.name);
        write_files(&dir, &files).map_err(|e| {
            // A bundle's directory is whole or absent.
            let _ = std::fs::remove_dir_all(&dir);
            e.to_string()
        })?;
        Ok(files.len())
    };
    // Images are pulled ahead, `--jobs` at once, apart from the cores' pool that renders.
    sources.prefetch(bundles.iter().enumerate().filter_map(|(i, b)| {
        (first_of_name[b.name.as_str()] == i && unusable_dir_name(&b.name).is_none()).then_some(*b)
    }));
    let results: Vec<Result<usize, String>> = bundles
        .par_iter()
        .enumerate()
        .map(|(i, b)| render_one(i, b))
        .collect();
    crate::output::crash::point("rename the rendered tree into place");
    publish(stage, out)?;
    let mut refused = 0usize;
    let mut objects = 0usize;
    for (bundle, result) in bundles.iter().zip(&results) {
        match result {
            Ok(n) => {
                objects += n;
                writeln!(stdout, "{}", out.join(&bundle.name).display())?;
            }
            Err(reason) => {
                refused += 1;
                writeln!(
                    stderr,
                    "refused bundle \"{}\" of package \"{}\": {reason}",
                    bundle.name, bundle.package
                )?;
            }
        }
    }
    writeln!(
        stderr,
        "rendered {} of {} bundles ({objects} objects) into {}{}",
        bundles.len() - refused,
        bundles.len(),
        out.display(),
        if refused > 0 {
            format!("; {refused} refused")
        } else {
            String::new()
        }
    )?;
    Ok(if refused > 0 { EXIT_INVALID } else { EXIT_OK })
}

fn render(
    args: &BundleRenderArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    if args.all {
        let Some(path) = &args.catalog else {
            return Err(Error::Usage("--all needs --catalog PATH".into()));
        };
        return render_all(args, path, stdout, stderr);
    }
    let (olm, options) = render_options(args, stderr)?;
    let content = load(args)?;
    let csv = content.csv_name().unwrap_or("the bundle").to_owned();
    let files = object_files(content, &olm, &options)?;
    write_dir(&args.output_dir, &files)?;
    for (name, _) in &files {
        writeln!(stdout, "{}", args.output_dir.join(name).display())?;
    }
    writeln!(
        stderr,
        "wrote {} objects of {} into {}",
        files.len(),
        csv,
        args.output_dir.display()
    )?;
    Ok(EXIT_OK)
}

/// The release and feature set `bundle render` follows: `--cluster-version` (default the
/// newest known release) and `--feature-set` (default `Default`).
fn render_target(args: &BundleRenderArgs) -> Result<crate::openshift::Target, Error> {
    let text = args
        .cluster_version
        .clone()
        .unwrap_or_else(crate::openshift::newest_known);
    let version = crate::openshift::ClusterVersion::parse(&text)
        .map_err(|e| Error::Usage(format!("--cluster-version {text:?}: {e}")))?;
    crate::openshift::Target::new(&version, args.feature_set.as_deref(), &[])
        .map_err(|e| Error::Usage(e.to_string()))
}

/// Write every file into a new directory: staged beside it, renamed into place, so the
/// directory appears whole or not at all. An existing non-empty directory is refused.
fn write_dir(dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
    let stage = stage_beside(dir)?;
    write_files(stage.path(), files)?;
    publish(stage, dir)
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| {
        Error::Output(crate::output::Error::Io {
            action,
            path,
            source,
        })
    }
}

/// A staging directory beside `dir`, which must not exist or be empty.
fn stage_beside(dir: &Path) -> Result<tempfile::TempDir, Error> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io_error("cannot read", dir))?;
        if entries.next().is_some() {
            return Err(Error::Usage(format!(
                "--output-dir {} is not empty",
                dir.display()
            )));
        }
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io_error("cannot create", parent))?;
    tempfile::Builder::new()
        .prefix(".po-manifests-render-")
        .tempdir_in(parent)
        .map_err(io_error("cannot create a staging directory in", parent))
}

/// Create `root` and write `files` (names relative to it) into it.
fn write_files(root: &Path, files: &[(String, String)]) -> Result<(), Error> {
    std::fs::create_dir_all(root).map_err(io_error("cannot create", root))?;
    for (name, text) in files {
        let path = root.join(name);
        if let Some(parent) = path.parent().filter(|_| name.contains('/')) {
            std::fs::create_dir_all(parent).map_err(io_error("cannot create", parent))?;
        }
        std::fs::write(&path, text).map_err(io_error("cannot write", &path))?;
    }
    Ok(())
}

/// Rename the staging directory to `dir` (replacing it if it is an empty directory).
fn publish(stage: tempfile::TempDir, dir: &Path) -> Result<(), Error> {
    if dir.exists() {
        std::fs::remove_dir(dir).map_err(io_error("cannot replace", dir))?;
    }
    let staged = stage.keep();
    std::fs::rename(&staged, dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        io_error("cannot create", dir)(e)
    })
}
