//! `po-manifests catalog validate|list`: opm's checks and listings on one catalog.

use std::io::Write;

use super::flags::{
    CatalogCommand, CatalogListArgs, CatalogValidateArgs, ListWhat, OutputFormat, PictureFormat,
};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::catalog::{self, PackageFilter, list, picture, validate};

pub(super) fn run(
    command: &CatalogCommand,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    match command {
        CatalogCommand::Validate(args) => run_validate(args, stdout, stderr),
        CatalogCommand::List(args) => run_list(args, stdout),
    }
}

/// The catalog named on the command line cannot be loaded: no hint to run `catalog validate`,
/// which is what failed.
fn catalog_error(args_path: &std::path::Path, source: catalog::Error) -> Error {
    Error::CatalogFile {
        path: args_path.to_path_buf(),
        source: Box::new(source),
    }
}

fn run_validate(
    args: &CatalogValidateArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let options = if args.allow_multiple_heads {
        validate::Options::olm_v1()
    } else {
        validate::Options::default()
    };
    let report =
        validate::validate_path(&args.path, &options).map_err(|e| catalog_error(&args.path, e))?;
    match args.output {
        OutputFormat::Table | OutputFormat::Wide => {
            write!(stderr, "{report}")?;
            if report.is_valid() {
                writeln!(stderr, "{}: valid", args.path.display())?;
            }
        }
        format => super::printer::structured(stdout, format, &report)?,
    }
    Ok(if report.is_valid() {
        EXIT_OK
    } else {
        EXIT_INVALID
    })
}

fn run_list(args: &CatalogListArgs, stdout: &mut dyn Write) -> Result<u8, Error> {
    let filter = match &args.package {
        Some(p) => PackageFilter::Only(vec![p.clone()]),
        None => PackageFilter::All,
    };
    let catalog = catalog::load(&args.path, &filter).map_err(|e| catalog_error(&args.path, e))?;
    let package = args.package.as_deref();
    if let Some(p) = package
        && catalog.package(p).is_none()
    {
        return Err(Error::Usage(format!(
            "package \"{p}\" is not in {}",
            args.path.display()
        )));
    }
    let format = match (args.output.data(), args.what) {
        (Some(format), _) => format,
        (None, ListWhat::Channels) => {
            let d = picture::upgrade_graph(&catalog, package);
            let text = match args.output {
                PictureFormat::Dot => crate::diagram::dot(&d),
                _ => crate::diagram::mermaid(&d),
            };
            write!(stdout, "{text}")?;
            return Ok(EXIT_OK);
        }
        (None, _) => {
            return Err(Error::Usage(
                "-o mermaid and -o dot draw upgrade graphs: use them with `catalog list channels`"
                    .into(),
            ));
        }
    };
    if format.is_text() {
        let text = match args.what {
            ListWhat::Packages => {
                list::packages_text(&list::packages(&catalog, package), format.width())
            }
            ListWhat::Channels => {
                list::channels_text(&list::channels(&catalog, package), format.width())
            }
            ListWhat::Bundles => {
                list::bundles_text(&list::bundles(&catalog, package), format.width())
            }
        };
        write!(stdout, "{text}")?;
        return Ok(EXIT_OK);
    }
    match args.what {
        ListWhat::Packages => {
            super::printer::structured(stdout, format, &list::packages(&catalog, package))?
        }
        ListWhat::Channels => {
            super::printer::structured(stdout, format, &list::channels(&catalog, package))?
        }
        ListWhat::Bundles => {
            super::printer::structured(stdout, format, &list::bundles(&catalog, package))?
        }
    }
    Ok(EXIT_OK)
}
