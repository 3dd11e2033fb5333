//! `po-manifests catalog validate|list|digest`: opm's checks and listings on one catalog, and
//! its content digest.

use std::io::Write;

use super::flags::{
    CatalogCommand, CatalogDigestArgs, CatalogListArgs, CatalogValidateArgs, ListFormat, ListWhat,
    OutputFormat,
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
        CatalogCommand::Digest(args) => run_digest(args, stdout),
    }
}

fn run_digest(args: &CatalogDigestArgs, stdout: &mut dyn Write) -> Result<u8, Error> {
    let digest = if args.packages.is_empty() {
        catalog::content_digest(&args.path).map_err(|e| catalog_error(&args.path, e))?
    } else {
        let catalog = catalog::load(&args.path, &PackageFilter::Only(args.packages.clone()))
            .map_err(|e| catalog_error(&args.path, e))?;
        require_packages(
            &catalog,
            &args.path,
            args.packages.iter().map(String::as_str),
        )?;
        catalog
            .read_digest()
            .map_err(|e| catalog_error(&args.path, e))?
    };
    writeln!(stdout, "{digest}")?;
    Ok(EXIT_OK)
}

/// A usage error for the first of `packages` that `catalog` (loaded for them) does not
/// have, with the close names it has.
fn require_packages<'p>(
    catalog: &catalog::model::Catalog,
    path: &std::path::Path,
    packages: impl IntoIterator<Item = &'p str>,
) -> Result<(), Error> {
    let Some(missing) = packages.into_iter().find(|p| catalog.package(p).is_none()) else {
        return Ok(());
    };
    let close = crate::resolve::close_package_names(missing, [catalog]);
    let hint = match close.as_slice() {
        [] => String::new(),
        names => format!(
            "; did you mean {}?",
            names
                .iter()
                .map(|n| crate::text::escape(n))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    Err(Error::Usage(format!(
        "package {} is not in {}{hint}",
        crate::text::escape(missing),
        path.display()
    )))
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
    require_packages(&catalog, &args.path, package)?;
    let format = match (args.output, args.what) {
        (ListFormat::Mermaid | ListFormat::Dot, ListWhat::Channels) => {
            let d = picture::upgrade_graph(&catalog, package);
            let text = match args.output {
                ListFormat::Dot => crate::diagram::dot(&d),
                _ => crate::diagram::mermaid(&d),
            };
            write!(stdout, "{text}")?;
            return Ok(EXIT_OK);
        }
        (ListFormat::Mermaid | ListFormat::Dot, _) => {
            return Err(Error::Usage(
                "-o mermaid and -o dot draw upgrade graphs: use them with `catalog list channels`"
                    .into(),
            ));
        }
        (ListFormat::Name, what) => {
            let names = match what {
                ListWhat::Packages => list::package_names(&catalog, package),
                ListWhat::Channels => list::channel_names(&catalog, package),
                ListWhat::Bundles => list::bundle_names(&catalog, package),
            };
            for n in names {
                writeln!(stdout, "{n}")?;
            }
            return Ok(EXIT_OK);
        }
        (ListFormat::Table, _) => OutputFormat::Table,
        (ListFormat::Wide, _) => OutputFormat::Wide,
        (ListFormat::Json, _) => OutputFormat::Json,
        (ListFormat::Yaml, _) => OutputFormat::Yaml,
    };
    if format.is_text() {
        let options = list::TextOptions {
            width: format.width(),
            headers: !args.no_headers,
            one_package: package.is_some(),
        };
        let text = match args.what {
            ListWhat::Packages => list::packages_text(&list::packages(&catalog, package), options),
            ListWhat::Channels => list::channels_text(&list::channels(&catalog, package), options),
            ListWhat::Bundles => list::bundles_text(&list::bundles(&catalog, package), options),
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
