//! The `bundle` step: load one registry+v1 bundle, from a directory or from the decoded
//! `olm.bundle.object` manifests of a catalog bundle, into a [`RegistryV1`].
//!
//! Input: `manifests/` + `metadata/` of a bundle image, or a list of objects.
//! Output: the CSV, the CRDs and the other objects, unchanged, plus checked accessors for
//! what later steps read from the CSV (install modes, permissions, deployments, webhooks,
//! owned API services, images, …; see the `csv` accessors on [`RegistryV1`]).
//!
//! Where the content comes from when a catalog does not embed it (catalogs from OpenShift 4.17
//! on): [`source`] (`--bundles` directories, OCI layouts, registries).
//!
//! Source of truth: operator-controller `internal/operator-controller/rukpak/bundle/source/source.go`
//! (`FromFS`), as summarised in `reference/catalogs-and-conversion.md` §5.1 and §2.2:
//!
//! - `metadata/annotations.yaml` gives the package name
//!   (`operators.operatorframework.io.bundle.package.v1`), which must be non-empty;
//! - `manifests/` must be flat; each file may hold several YAML documents or a JSON stream;
//! - kind `ClusterServiceVersion` is the CSV (exactly one), `CustomResourceDefinition` a CRD,
//!   everything else goes to `others` (whether it is supported is decided by `convert`);
//! - `metadata/properties.yaml` is appended to the CSV annotation `olm.properties`, re-encoded
//!   exactly as Go's `json.Marshal([]property.Property)` writes it.

mod csv;
mod decode;
pub mod source;
pub mod yaml11;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

pub use csv::{
    ApiServiceDescription, CrdDescription, DeploymentSpec, InstallModeType, Permission, PolicyRule,
    RelatedImage, WebhookDefinition, WebhookRule, WebhookType,
};
pub use decode::{DecodeError, decode_bundle_object, decode_documents};

use decode::{go_compact, go_json_sorted};
pub(crate) use decode::{go_json_string, type_name};

/// The annotation that names the package in `metadata/annotations.yaml`.
pub const PACKAGE_ANNOTATION: &str = "operators.operatorframework.io.bundle.package.v1";

/// The CSV annotation holding extra bundle properties as a JSON array.
pub const OLM_PROPERTIES_ANNOTATION: &str = "olm.properties";

/// A registry+v1 bundle: its package name, its ClusterServiceVersion, its CRDs and every
/// other manifest, each as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryV1 {
    /// The package name (from `metadata/annotations.yaml`, or the catalog).
    pub package: String,
    /// The ClusterServiceVersion object.
    pub csv: Value,
    /// The CustomResourceDefinition objects, in file order.
    pub crds: Vec<Value>,
    /// Every other object, in file order.
    pub others: Vec<Value>,
}

/// Why a bundle could not be loaded or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read.
    #[error("reading {}: {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A manifest could not be decoded.
    #[error("decoding {location}: {source}")]
    Decode {
        /// File path, or `object N` for [`RegistryV1::from_objects`].
        location: String,
        /// What went wrong (boxed: YAML errors are large).
        source: Box<DecodeError>,
    },
    /// `metadata/annotations.yaml` has no usable package name.
    #[error(
        "bundle {}: {PACKAGE_ANNOTATION} in {} must be a non-empty string, found {found}",
        dir.display(), file.display()
    )]
    MissingPackageName {
        /// The bundle directory.
        dir: PathBuf,
        /// The annotations file.
        file: PathBuf,
        /// What was there instead.
        found: String,
    },
    /// [`RegistryV1::from_objects`] was given an empty package name.
    #[error("bundle {csv:?}: package name is empty")]
    EmptyPackageName {
        /// The CSV name.
        csv: String,
    },
    /// `manifests/` contains a subdirectory.
    #[error(
        "bundle {}: subdirectories are not allowed within the \"manifests\" directory: found {}",
        dir.display(), path.display()
    )]
    Subdirectory {
        /// The bundle directory.
        dir: PathBuf,
        /// The subdirectory found.
        path: PathBuf,
    },
    /// An object has no `kind`.
    #[error("{location}: document {index} has no kind")]
    MissingKind {
        /// File path or `object N`.
        location: String,
        /// Zero-based object index within the location.
        index: usize,
    },
    /// No ClusterServiceVersion was found.
    #[error("bundle {source_name}: no ClusterServiceVersion found")]
    NoCsv {
        /// The bundle directory, or the package name for catalog objects.
        source_name: String,
    },
    /// More than one ClusterServiceVersion was found.
    #[error("bundle {source_name}: more than one ClusterServiceVersion ({first:?} and {second:?})")]
    MultipleCsvs {
        /// The bundle directory, or the package name for catalog objects.
        source_name: String,
        /// Name of the first CSV.
        first: String,
        /// Name of the second CSV.
        second: String,
    },
    /// The CSV annotation `olm.properties` is not a JSON array of properties.
    #[error(
        "bundle {csv:?}: csv.metadata.annotations['olm.properties'] is not a list of properties: {source}"
    )]
    InvalidOlmProperties {
        /// The CSV name.
        csv: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// `metadata/properties.yaml` does not hold `properties: [{type, value}, …]`.
    #[error("{}: {reason}", path.display())]
    InvalidPropertiesFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A CSV field has the wrong type.
    #[error("bundle {csv:?}: field {field} must be {expected}, found {found}")]
    InvalidField {
        /// The CSV name.
        csv: String,
        /// Dotted path of the field.
        field: String,
        /// What the field should be.
        expected: &'static str,
        /// JSON type found.
        found: &'static str,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

fn kind_of(v: &Value) -> Option<&str> {
    v.get("kind")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
}

fn name_of(v: &Value) -> &str {
    v.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Collects objects into CSV / CRDs / others.
#[derive(Default)]
struct Router {
    csv: Option<Value>,
    crds: Vec<Value>,
    others: Vec<Value>,
}

impl Router {
    fn push(
        &mut self,
        obj: Value,
        location: &str,
        index: usize,
        source: &str,
    ) -> Result<(), Error> {
        match kind_of(&obj) {
            None => Err(Error::MissingKind {
                location: location.to_owned(),
                index,
            }),
            Some("ClusterServiceVersion") => {
                if let Some(first) = &self.csv {
                    return Err(Error::MultipleCsvs {
                        source_name: source.to_owned(),
                        first: name_of(first).to_owned(),
                        second: name_of(&obj).to_owned(),
                    });
                }
                self.csv = Some(obj);
                Ok(())
            }
            Some("CustomResourceDefinition") => {
                self.crds.push(obj);
                Ok(())
            }
            Some(_) => {
                self.others.push(obj);
                Ok(())
            }
        }
    }

    fn finish(self, package: String, source: &str) -> Result<RegistryV1, Error> {
        let csv = self.csv.ok_or_else(|| Error::NoCsv {
            source_name: source.to_owned(),
        })?;
        Ok(RegistryV1 {
            package,
            csv,
            crds: self.crds,
            others: self.others,
        })
    }
}

impl RegistryV1 {
    /// Load a bundle directory (`manifests/` and `metadata/`).
    pub fn from_dir(dir: &Path) -> Result<Self, Error> {
        let package = read_package_name(dir)?;

        let manifests = dir.join("manifests");
        let mut entries = std::fs::read_dir(&manifests)
            .map_err(io_err(&manifests))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(io_err(&manifests))?;
        // fs.WalkDir visits in lexical order; keep that so `others` order is stable.
        entries.sort_by_key(|e| e.file_name());

        let source = dir.display().to_string();
        let mut router = Router::default();
        for entry in entries {
            let path = entry.path();
            let file_type = entry.file_type().map_err(io_err(&path))?;
            if file_type.is_dir() {
                return Err(Error::Subdirectory {
                    dir: dir.to_owned(),
                    path,
                });
            }
            let text =
                crate::fsread::read_to_string(&path, crate::fsread::BUNDLE_FILE_LIMIT, Some(dir))
                    .map_err(io_err(&path))?;
            let location = path.display().to_string();
            let docs = decode_documents(&text).map_err(|source| Error::Decode {
                location: location.clone(),
                source: Box::new(source),
            })?;
            for (index, doc) in docs.into_iter().enumerate() {
                router.push(doc, &location, index, &source)?;
            }
        }
        let mut bundle = router.finish(package, &source)?;
        bundle.merge_metadata_properties(&dir.join("metadata").join("properties.yaml"))?;
        Ok(bundle)
    }

    /// Build a bundle from a catalog bundle's decoded `olm.bundle.object` manifests (see
    /// [`decode_bundle_object`]). There is no `properties.yaml` here: catalog properties
    /// are already on the `olm.bundle` itself.
    pub fn from_objects(package: &str, objects: Vec<Value>) -> Result<Self, Error> {
        let mut router = Router::default();
        for (index, obj) in objects.into_iter().enumerate() {
            if !obj.is_object() {
                return Err(Error::Decode {
                    location: format!("package {package:?} object {index}"),
                    source: Box::new(DecodeError::NotAnObject {
                        index,
                        found: type_name(&obj),
                    }),
                });
            }
            router.push(
                obj,
                &format!("package {package:?} object {index}"),
                0,
                package,
            )?;
        }
        let bundle = router.finish(package.to_owned(), &format!("{package:?}"))?;
        if package.is_empty() {
            return Err(Error::EmptyPackageName {
                csv: name_of(&bundle.csv).to_owned(),
            });
        }
        Ok(bundle)
    }

    /// Append `metadata/properties.yaml` (if present and non-empty) to the CSV annotation
    /// `olm.properties`, as operator-controller's `copyMetadataPropertiesToCSV` does.
    fn merge_metadata_properties(&mut self, path: &Path) -> Result<(), Error> {
        let text = match crate::fsread::read_to_string(path, crate::fsread::BUNDLE_FILE_LIMIT, None)
        {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        if text.is_empty() {
            return Ok(());
        }
        let invalid = |reason: String| Error::InvalidPropertiesFile {
            path: path.to_owned(),
            reason,
        };
        let doc = decode::decode_single(&text).map_err(|source| Error::Decode {
            location: path.display().to_string(),
            source: Box::new(source),
        })?;
        let file_props: &[Value] = match doc.get("properties") {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(other) => {
                return Err(invalid(format!(
                    "properties must be a list, found {}",
                    type_name(other)
                )));
            }
        };

        // Existing properties from the annotation, with values kept as raw JSON text.
        let csv_name = name_of(&self.csv).to_owned();
        let mut encoded: Vec<String> = Vec::new();
        let existing = self
            .csv
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(|a| a.get(OLM_PROPERTIES_ANNOTATION))
            .cloned();
        if let Some(existing) = existing {
            let text = match &existing {
                Value::String(s) => s.as_str(),
                other => {
                    return Err(Error::InvalidField {
                        csv: csv_name,
                        field: "metadata.annotations.olm.properties".to_owned(),
                        expected: "a string",
                        found: type_name(other),
                    });
                }
            };
            let props: Vec<RawProperty<'_>> =
                serde_json::from_str(text).map_err(|source| Error::InvalidOlmProperties {
                    csv: csv_name.clone(),
                    source,
                })?;
            for p in props {
                let mut s = String::new();
                s.push_str("{\"type\":");
                go_json_string(p.ty.as_deref().unwrap_or(""), &mut s);
                s.push_str(",\"value\":");
                match p.value {
                    Some(raw) => go_compact(raw.get(), &mut s),
                    None => s.push_str("null"),
                }
                s.push('}');
                encoded.push(s);
            }
        }
        for (i, p) in file_props.iter().enumerate() {
            let ty = match p.get("type") {
                None | Some(Value::Null) => "",
                Some(Value::String(s)) => s,
                Some(other) => {
                    return Err(invalid(format!(
                        "properties[{i}].type must be a string, found {}",
                        type_name(other)
                    )));
                }
            };
            let mut s = String::new();
            s.push_str("{\"type\":");
            go_json_string(ty, &mut s);
            s.push_str(",\"value\":");
            // sigs.k8s.io/yaml turns YAML into JSON through Go maps: keys come out sorted.
            go_json_sorted(p.get("value").unwrap_or(&Value::Null), &mut s);
            s.push('}');
            encoded.push(s);
        }
        // Quirk copied on purpose: Go marshals the nil slice that results from zero
        // properties as `null`, so the annotation becomes the string "null".
        let joined = if encoded.is_empty() {
            "null".to_owned()
        } else {
            format!("[{}]", encoded.join(","))
        };
        self.set_annotation(OLM_PROPERTIES_ANNOTATION, joined)
    }

    fn set_annotation(&mut self, key: &str, value: String) -> Result<(), Error> {
        let csv_name = name_of(&self.csv).to_owned();
        let invalid = |field: &str, found: &Value| Error::InvalidField {
            csv: csv_name.clone(),
            field: field.to_owned(),
            expected: "a mapping",
            found: type_name(found),
        };
        let Value::Object(csv) = &mut self.csv else {
            return Err(invalid("<root>", &self.csv));
        };
        let md = csv
            .entry("metadata")
            .or_insert_with(|| Value::Object(Default::default()));
        if md.is_null() {
            *md = Value::Object(Default::default());
        }
        let Value::Object(md) = md else {
            return Err(invalid("metadata", md));
        };
        let ann = md
            .entry("annotations")
            .or_insert_with(|| Value::Object(Default::default()));
        if ann.is_null() {
            *ann = Value::Object(Default::default());
        }
        let Value::Object(ann) = ann else {
            return Err(invalid("metadata.annotations", ann));
        };
        ann.insert(key.to_owned(), Value::String(value));
        Ok(())
    }
}

#[derive(Deserialize)]
struct RawProperty<'a> {
    #[serde(rename = "type", default)]
    ty: Option<String>,
    #[serde(borrow, default)]
    value: Option<&'a RawValue>,
}

fn read_package_name(dir: &Path) -> Result<String, Error> {
    let file = dir.join("metadata").join("annotations.yaml");
    let text = crate::fsread::read_to_string(&file, crate::fsread::BUNDLE_FILE_LIMIT, Some(dir))
        .map_err(io_err(&file))?;
    let doc = decode::decode_single(&text).map_err(|source| Error::Decode {
        location: file.display().to_string(),
        source: Box::new(source),
    })?;
    let found = doc
        .get("annotations")
        .and_then(|a| a.get(PACKAGE_ANNOTATION));
    match found {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        other => Err(Error::MissingPackageName {
            dir: dir.to_owned(),
            file,
            found: match other {
                None => "nothing".to_owned(),
                Some(Value::String(_)) => "an empty string".to_owned(),
                Some(v) => format!("a {}", type_name(v)),
            },
        }),
    }
}

#[cfg(test)]
mod tests;
