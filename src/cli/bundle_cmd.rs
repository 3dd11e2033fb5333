//! `po-manifests bundle render`: a registry+v1 bundle (a directory, or a bundle embedded in a
//! catalog) converted into the plain objects OLM v1 would create, one object per file.

use std::io::Write;
use std::path::Path;

use super::flags::{BundleCommand, BundleRenderArgs};
use super::{EXIT_OK, Error};
use crate::bundle::RegistryV1;
use crate::catalog::{self, PackageFilter};
use crate::convert;
use crate::output::yaml;

pub(super) fn run(
    command: &BundleCommand,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    match command {
        BundleCommand::Render(args) => render(args, stdout, stderr),
    }
}

fn load(args: &BundleRenderArgs) -> Result<RegistryV1, Error> {
    if let Some(dir) = &args.bundle_dir {
        return RegistryV1::from_dir(dir).map_err(|e| Error::Bundle(crate::error_chain(&e)));
    }
    let (Some(path), Some(name)) = (&args.catalog, &args.bundle) else {
        return Err(Error::Usage(
            "give a bundle directory, or --catalog PATH --bundle NAME".into(),
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
    if !bundle.has_bundle_objects() {
        return Err(Error::Bundle(format!(
            "bundle {name} carries no olm.bundle.object properties (only olm.csv.metadata), so its manifests are not in the catalog; \
             unpack the bundle image (for example with `oc image extract`) and pass the directory instead"
        )));
    }
    let objects = bundle
        .bundle_objects()
        .map_err(|e| Error::Bundle(crate::error_chain(&e)))?;
    RegistryV1::from_objects(&bundle.package, objects)
        .map_err(|e| Error::Bundle(crate::error_chain(&e)))
}

fn render(
    args: &BundleRenderArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let content = load(args)?;
    let target_namespaces = match args.watch_namespace.as_deref() {
        None | Some("") => Vec::new(),
        Some(ns) => vec![ns.to_string()],
    };
    let options = convert::Options {
        install_namespace: args.namespace.clone(),
        target_namespaces,
        deployment_config: None,
    };
    let objects =
        convert::convert(&content, &options).map_err(|e| Error::Bundle(crate::error_chain(&e)))?;
    let mut files = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        let text = yaml::to_yaml(object).map_err(Error::Bundle)?;
        files.push((convert::object_file_name(i, object), text));
    }
    write_dir(&args.output_dir, &files)?;
    for (name, _) in &files {
        writeln!(stdout, "{}", args.output_dir.join(name).display())?;
    }
    writeln!(
        stderr,
        "wrote {} objects of {} into {}",
        files.len(),
        content.csv_name().unwrap_or("the bundle"),
        args.output_dir.display()
    )?;
    Ok(EXIT_OK)
}

/// Write every file into a new directory: staged beside it, renamed into place, so the
/// directory appears whole or not at all. An existing non-empty directory is refused.
fn write_dir(dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| {
            Error::Output(crate::output::Error::Io {
                action,
                path,
                source,
            })
        }
    };
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io("cannot read", dir))?;
        if entries.next().is_some() {
            return Err(Error::Usage(format!(
                "--output-dir {} is not empty",
                dir.display()
            )));
        }
        std::fs::remove_dir(dir).map_err(io("cannot replace", dir))?;
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io("cannot create", parent))?;
    let stage = tempfile::Builder::new()
        .prefix(".po-manifests-render-")
        .tempdir_in(parent)
        .map_err(io("cannot create a staging directory in", parent))?;
    for (name, text) in files {
        let path = stage.path().join(name);
        std::fs::write(&path, text).map_err(io("cannot write", &path))?;
    }
    let staged = stage.keep();
    std::fs::rename(&staged, dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        io("cannot create", dir)(e)
    })
}
