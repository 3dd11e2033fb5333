//! Step 2 of the pipeline: read a File-Based Catalog (a directory, a file, a catalogd JSON
//! lines stream) into a linked [`model::Catalog`].
//!
//! Its files, bottom first (each reads only files listed before it, and this one):
//!
//! * [`decode`] decodes catalog text as Go's libraries do (`encoding/json` rules for typed
//!   structs, `sigs.k8s.io/yaml` options); [`image`] checks image references.
//! * [`property`] names the property types and holds their typed values (`alpha/property`).
//! * [`model`] is the linked catalog (operator-registry `alpha/model`): it imports neither the
//!   loader nor the validator.
//! * [`problem`] is what a linking or validation problem is.
//! * [`fastyaml`] reads the block-style YAML subset catalogs are written in into the value
//!   serde-saphyr would give, and leaves everything else to serde-saphyr.
//! * [`fbc`] mirrors the file format (operator-registry `alpha/declcfg/declcfg.go`): typed
//!   structs named as in the file, schema constants, routing keys and raw blobs ([`fbc::Meta`]).
//! * [`files`] lists a catalog's files (`.indexignore`, lexical order), caps what is read and
//!   computes the content digest.
//! * [`sink`] is what the readers hand documents to (so readers and loaders do not import
//!   each other).
//! * [`jsonstream`] splits a JSON stream into documents; [`yamlstream`] splits multi-document
//!   YAML and parses it in batches on every core; [`read`] reads one file with them (JSON,
//!   falling back to YAML) and walks a catalog as [`fbc::Meta`]s.
//! * [`lazy`] keeps small documents in their files and reads them back package by package.
//! * [`loader`] loads a catalog into typed lists (`load.go`'s `LoadFS`), in parallel per file.
//! * [`link`] builds the model from the file's blobs (`ConvertToModel`), collecting problems.
//! * [`graph`] computes channel heads, the replaces chain and one-hop successors.
//! * [`validate`] holds every `opm validate` rule and reports all problems as a sorted tree.
//! * [`list`] gives the rows of `catalog list packages|channels|bundles` (`opm alpha list`).
//!
//! This file holds the shared [`Error`], [`load`] and the content digest.
//!
//! Source of truth: `reference/catalogs-and-conversion.md` §1, §2.1, §4.1–4.2 and §6.

pub mod decode;
pub mod fastyaml;
pub mod fbc;
pub mod files;
pub mod graph;
pub mod image;
pub mod jsonstream;
pub mod lazy;
pub mod link;
pub mod list;
pub mod loader;
pub mod model;
pub mod picture;
pub mod problem;
pub mod property;
pub mod read;
pub mod sink;
pub mod validate;
pub mod yamlstream;

use std::path::{Path, PathBuf};

use model::Origin;

/// Everything that can go wrong while reading a catalog or decoding part of it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The directory walk (or an `.indexignore` file) failed.
    #[error("cannot walk catalog directory {}", path.display())]
    Walk {
        /// The catalog root.
        path: PathBuf,
        /// The walker's error.
        #[source]
        source: ignore::Error,
    },
    /// A JSON document is malformed.
    #[error("{origin}: invalid JSON")]
    Json {
        /// Where the document starts.
        origin: Origin,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A YAML document is malformed.
    #[error("{origin}: invalid YAML")]
    Yaml {
        /// Where the document starts.
        origin: Origin,
        /// The parser's error.
        #[source]
        source: Box<serde_saphyr::Error>,
    },
    /// A line starting with `---` carries more than a comment.
    #[error("{origin}: invalid YAML document separator: {rest:?}")]
    YamlSeparator {
        /// The separator line.
        origin: Origin,
        /// What followed `---`.
        rest: String,
    },
    /// One document (a JSON object, a YAML document) is larger than the loader reads: refused
    /// while its end is being looked for, before it is parsed.
    #[error(
        "{origin}: the document starting here is larger than {limit} bytes, the most one catalog document may hold (real ones, bundles with their manifests embedded, are at most a few MB); check that this file is a catalog"
    )]
    DocumentTooLarge {
        /// Where the document starts.
        origin: Origin,
        /// The cap, in bytes.
        limit: usize,
    },
    /// A document is not valid UTF-8.
    #[error("{origin}: document is not valid UTF-8")]
    NotUtf8 {
        /// Where the document starts.
        origin: Origin,
    },
    /// A document is not an object (a top-level JSON array, a scalar).
    #[error("{origin}: expected an FBC object, found {found}")]
    NotAnObject {
        /// Where the document starts.
        origin: Origin,
        /// What was found instead.
        found: &'static str,
    },
    /// A document has no (or an empty) `schema`.
    #[error("{origin}: object is missing root schema field")]
    MissingSchema {
        /// Where the document starts.
        origin: Origin,
    },
    /// A document of a known schema does not decode into its typed form.
    #[error("{origin}: cannot decode {schema} {name:?} (package {package:?})")]
    Decode {
        /// Where the document starts.
        origin: Origin,
        /// Its schema.
        schema: String,
        /// Its `package` key.
        package: String,
        /// Its `name` key.
        name: String,
        /// The decoder's error.
        #[source]
        source: serde_json::Error,
    },
    /// The documents do not link into a catalog (what `opm`'s `ConvertToModel` stops on);
    /// every problem is listed, sorted.
    #[error("catalog cannot be linked ({} problem(s)):\n{}", problems.len(), validate::Report::lines(problems))]
    Link {
        /// The problems, sorted catalog → package → channel → bundle.
        problems: Vec<problem::Problem>,
    },
    /// A bundle property has the wrong shape.
    #[error("package {package:?}, bundle {bundle:?}: property #{index} ({ty}) is invalid")]
    Property {
        /// Package.
        package: String,
        /// Bundle.
        bundle: String,
        /// Index in the bundle's properties.
        index: usize,
        /// Property type.
        ty: String,
        /// Decoder error.
        #[source]
        source: serde_json::Error,
    },
    /// An `olm.bundle.object` cannot be turned into a manifest.
    #[error("package {package:?}, bundle {bundle:?}: olm.bundle.object property #{index}: {kind}")]
    BundleObject {
        /// Package.
        package: String,
        /// Bundle.
        bundle: String,
        /// Index in the bundle's properties.
        index: usize,
        /// What is wrong.
        kind: model::BundleObjectError,
    },
}

impl Error {
    /// Whether the catalog could not be read at all (exit status 3), rather than read and
    /// found invalid.
    pub fn is_io(&self) -> bool {
        matches!(self, Error::Io { .. } | Error::Walk { .. })
    }
}

/// Which packages to keep while loading.
#[derive(Debug, Clone, Default)]
pub enum PackageFilter {
    /// Every package.
    #[default]
    All,
    /// Only these packages (by name); other documents are skipped after reading their
    /// routing keys.
    Only(Vec<String>),
}

/// Load and link a catalog: [`loader::load`] then [`link::build`]. Fails on I/O and parse
/// errors, and with [`Error::Link`] listing every linking problem that `opm`'s
/// `ConvertToModel` would stop on, except a bundle version that does not parse (the bundle
/// is kept with `version: None`, as OLM v1 keeps it). Model rules (heads, stranded bundles, …) are not checked
/// here; see [`validate`].
///
/// The catalog keeps an index of embedded manifests, not the manifests: `olm.bundle.object`
/// values of JSON files stay in the file (the model's property holds their place) and are
/// read back by [`model::Bundle::bundle_objects`], so the catalog must not change while it
/// is in use.
pub fn load(path: &Path, filter: &PackageFilter) -> Result<model::Catalog, Error> {
    // The digest is computed on first use (see `model::Catalog::digest`).
    load_inner(path, filter, false)
}

/// [`load`], computing the content digest ([`model::Catalog::digest`]) in the same pass, on
/// the threads that read the files, for a caller that will need it (a lock file, a `sha256`
/// pin): reading a large catalog a second time, on one thread, to hash it costs more.
pub fn load_and_digest(path: &Path, filter: &PackageFilter) -> Result<model::Catalog, Error> {
    load_inner(path, filter, true)
}

fn load_inner(path: &Path, filter: &PackageFilter, digest: bool) -> Result<model::Catalog, Error> {
    let dc = loader::load_with(
        path,
        filter,
        &loader::LoadOptions {
            lazy_bundle_objects: true,
            // The model is kept whole: leaving documents in the file would only decode them
            // twice.
            lazy_documents: false,
            digest,
            keep_csv_metadata: true,
        },
    )?;
    let (mut catalog, problems) = link::build(dc, &link::BuildOptions::default())?;
    catalog.read_packages = match filter {
        PackageFilter::All => None,
        PackageFilter::Only(packages) => {
            let mut packages = packages.clone();
            packages.sort();
            packages.dedup();
            Some(packages)
        }
    };
    // A bundle whose `olm.package` version does not parse is kept (with no parsed version):
    // OLM v1 resolves such catalogs, skipping the bundle unless it would be the answer
    // (`resolve`'s `broken_bundle_warnings` says so once per bundle). `catalog validate`
    // still reports it, as `opm validate` does.
    let problems: Vec<problem::Problem> = problems
        .into_iter()
        .filter(|p| !matches!(p.kind, problem::ProblemKind::InvalidVersion { .. }))
        .collect();
    if problems.is_empty() {
        Ok(catalog)
    } else {
        Err(Error::Link { problems })
    }
}

/// The content digest of a catalog path, `sha256:<hex>`: for a file, the sha256 of its bytes;
/// for a directory, the sha256 over the lines `"<sha256 hex of file>  <relative path>\n"` for
/// every file the loader reads, in the loader's order. Equal to [`model::Catalog::digest`].
pub fn content_digest(path: &Path) -> Result<String, Error> {
    files::digest_only(path)
}

// Here rather than in `model`: the model does not import the loader that computes the digest.
impl model::Catalog {
    /// The content digest, `sha256:<hex>` (see [`content_digest`]). Computed only
    /// when first asked for (a pin, the lock file), not while loading: hashing every byte is
    /// about a third of loading a large catalog, and most commands never need it. Like the
    /// bundle objects left in the file, this reads the catalog again, so the catalog must not
    /// change while it is in use.
    pub fn digest(&self) -> Result<String, Error> {
        cached(&self.digest, || match &self.source {
            Some(path) => files::digest_only(path),
            None => Ok(String::new()),
        })
    }

    /// The digest of what this load read: [`content_digest`]'s rule applied to the files that
    /// held a document the package filter kept (every file of its packages, channels, bundles,
    /// deprecations and other schemas), whole, and to no other file. A catalog loaded for some
    /// packages is pinned by it where only those packages matter: content of other packages
    /// may change without changing it, any byte of a file holding one of these packages'
    /// documents changes it, and so does a file that comes to hold one or stops holding one.
    /// [`Catalog::digest`] for a catalog read whole and for a catalog that is one file (a
    /// catalogd download names its cached body by that digest). The files are read again (on
    /// every core), so the catalog must not change while it is in use.
    pub fn read_digest(&self) -> Result<String, Error> {
        if self.read_packages.is_none() || self.single_file {
            return self.digest();
        }
        cached(&self.read_digest, || {
            files::digest_of(false, &self.held_files)
        })
    }

    /// The packages the load was asked for, sorted, or `None` when it read every package:
    /// what [`Catalog::read_digest`] covers.
    pub fn read_packages(&self) -> Option<&[String]> {
        self.read_packages.as_deref()
    }
}

/// The value in `cell`, computed by `compute` the first time. The lock is held while it is
/// computed, so callers on other threads wait for that one computation; a failure is not
/// kept (the next caller tries again and reports it).
fn cached(
    cell: &std::sync::Mutex<Option<String>>,
    compute: impl FnOnce() -> Result<String, Error>,
) -> Result<String, Error> {
    let mut value = cell
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(v) = value.as_ref() {
        return Ok(v.clone());
    }
    let v = compute()?;
    *value = Some(v.clone());
    Ok(v)
}

#[cfg(test)]
pub(crate) mod tests;
