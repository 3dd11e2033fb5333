//! `po-manifests catalog validate|list`: opm's checks and listings on one catalog.

use std::io::Write;

use super::flags::{CatalogCommand, CatalogListArgs, CatalogValidateArgs, ListWhat, ReportFormat};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::catalog::{self, PackageFilter, list, validate};

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

fn catalog_error(args_path: &std::path::Path, source: catalog::Error) -> Error {
    Error::Catalog {
        name: args_path.display().to_string(),
        location: args_path.display().to_string(),
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
        ReportFormat::Text => {
            write!(stderr, "{report}")?;
            if report.is_valid() {
                writeln!(stderr, "{}: valid", args.path.display())?;
            }
        }
        ReportFormat::Json => {
            let text = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
            writeln!(stdout, "{text}")?;
        }
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
    let text = match (args.what, args.output) {
        (ListWhat::Packages, ReportFormat::Text) => {
            list::packages_text(&list::packages(&catalog, package))
        }
        (ListWhat::Channels, ReportFormat::Text) => {
            list::channels_text(&list::channels(&catalog, package))
        }
        (ListWhat::Bundles, ReportFormat::Text) => {
            list::bundles_text(&list::bundles(&catalog, package))
        }
        (ListWhat::Packages, ReportFormat::Json) => json(&list::packages(&catalog, package))?,
        (ListWhat::Channels, ReportFormat::Json) => json(&list::channels(&catalog, package))?,
        (ListWhat::Bundles, ReportFormat::Json) => json(&list::bundles(&catalog, package))?,
    };
    write!(stdout, "{text}")?;
    Ok(EXIT_OK)
}

fn json<T: serde::Serialize>(rows: &T) -> Result<String, Error> {
    let mut text =
        serde_json::to_string_pretty(rows).map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
    text.push('\n');
    Ok(text)
}
