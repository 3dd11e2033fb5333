//! Test catalogs written as File-Based Catalog JSON and loaded through the real loader, shaped
//! like Red Hat's (`replaces`, `skips`, `skipRange`, `olm.maxOpenShiftVersion`).

use serde_json::{Value, json};

use super::LoadedCatalog;
use crate::catalog::{self, PackageFilter};

/// One package's documents.
pub(crate) struct Fbc {
    package: String,
    docs: Vec<Value>,
    deprecated: Vec<Value>,
}

/// A channel entry.
pub(crate) fn entry(
    name: &str,
    replaces: Option<&str>,
    skips: &[&str],
    skip_range: Option<&str>,
) -> Value {
    let mut e = json!({ "name": name });
    if let Some(r) = replaces {
        e["replaces"] = json!(r);
    }
    if !skips.is_empty() {
        e["skips"] = json!(skips);
    }
    if let Some(r) = skip_range {
        e["skipRange"] = json!(r);
    }
    e
}

impl Fbc {
    /// A package whose default channel is `stable`.
    pub(crate) fn new(package: &str) -> Fbc {
        Fbc {
            package: package.into(),
            docs: vec![
                json!({"schema": "olm.package", "name": package, "defaultChannel": "stable"}),
            ],
            deprecated: Vec::new(),
        }
    }

    /// A bundle named `<package>.v<version>`, with an optional `olm.maxOpenShiftVersion`.
    pub(crate) fn bundle(self, version: &str, max: Option<&str>) -> Fbc {
        let extra = max
            .map(|m| json!({"type": "olm.maxOpenShiftVersion", "value": m}))
            .into_iter()
            .collect();
        self.bundle_with(version, extra)
    }

    /// A bundle named `<package>.v<version>` with extra properties.
    pub(crate) fn bundle_with(self, version: &str, extra: Vec<Value>) -> Fbc {
        let name = format!("{}.v{version}", self.package);
        self.bundle_named(&name, version, extra)
    }

    /// A bundle with its own name, whatever its version text.
    pub(crate) fn bundle_named(mut self, name: &str, version: &str, extra: Vec<Value>) -> Fbc {
        let mut properties = vec![json!({
            "type": "olm.package",
            "value": {"packageName": self.package, "version": version}
        })];
        properties.extend(extra);
        self.docs.push(json!({
            "schema": "olm.bundle",
            "name": name,
            "package": self.package,
            "image": format!("quay.io/acme/{}-bundle@sha256:{:0>64}", self.package, version.chars().filter(char::is_ascii_digit).collect::<String>()),
            "properties": properties,
        }));
        self
    }

    /// A channel.
    pub(crate) fn channel(mut self, name: &str, entries: Vec<Value>) -> Fbc {
        self.docs.push(json!({
            "schema": "olm.channel",
            "name": name,
            "package": self.package,
            "entries": entries,
        }));
        self
    }

    /// Deprecate the bundle of this version.
    pub(crate) fn deprecate(mut self, version: &str) -> Fbc {
        self.deprecated.push(json!({
            "reference": {"schema": "olm.bundle", "name": format!("{}.v{version}", self.package)},
            "message": format!("{version} is deprecated"),
        }));
        self
    }

    /// The documents as one JSON stream.
    pub(crate) fn to_json(&self) -> String {
        let mut docs = self.docs.clone();
        if !self.deprecated.is_empty() {
            docs.push(json!({
                "schema": "olm.deprecations",
                "package": self.package,
                "entries": self.deprecated,
            }));
        }
        docs.iter()
            .map(|d| serde_json::to_string_pretty(d).expect("JSON"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Load through the real loader as catalog `name`.
    pub(crate) fn load(&self, name: &str) -> LoadedCatalog {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("catalog.json");
        std::fs::write(&path, self.to_json()).expect("write catalog");
        let catalog = catalog::load(dir.path(), &PackageFilter::All).expect("test catalog loads");
        LoadedCatalog {
            name: name.into(),
            priority: 0,
            image: None,
            location: format!("test:{name}"),
            catalog,
        }
    }
}

/// Several packages loaded through the real loader as one catalog `name`.
pub(crate) fn load_packages(name: &str, packages: &[Fbc]) -> LoadedCatalog {
    let dir = tempfile::tempdir().expect("tempdir");
    for (i, p) in packages.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("{i}-{}.json", p.package)),
            p.to_json(),
        )
        .expect("write catalog");
    }
    let catalog = catalog::load(dir.path(), &PackageFilter::All).expect("test catalog loads");
    LoadedCatalog {
        name: name.into(),
        priority: 0,
        image: None,
        location: format!("test:{name}"),
        catalog,
    }
}
