//! The resolver's cache: every bundle of every visible catalog as OLM v0 holds it, one entry
//! per (bundle, channel), with the properties the registry serves for it.
//!
//! Upstream: `opm serve` turns each channel entry of the FBC model into an `api.Bundle`
//! (operator-registry `pkg/api/model_to_api.go` `ConvertModelBundleToAPIBundle`: every property
//! but `olm.bundle.object` and `olm.csv.metadata`, the `olm.gvk.required` and
//! `olm.package.required` properties again as legacy `Dependencies`), and the catalog operator
//! turns that into a cache entry (OLM `resolver/source_registry.go` `newOperatorFromBundle`: the
//! version read with blang `ParseTolerant`, the legacy dependencies appended to the properties
//! once more, an unparsable `skipRange` dropped).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::model::{Bundle, Catalog};
use crate::catalog::property::{self, Gvk, LabelProperty, PackageProperty, PackageRequired};
use crate::version::blang;

/// A CatalogSource's identity: `name` in `namespace` (OLM's `SourceKey`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct SourceKey {
    /// CatalogSource name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
}

impl SourceKey {
    /// A key.
    pub fn new(name: impl Into<String>, namespace: impl Into<String>) -> SourceKey {
        SourceKey {
            name: name.into(),
            namespace: namespace.into(),
        }
    }

    /// The virtual catalog of a namespace's installed CSVs (`@existing`).
    pub fn existing(namespace: &str) -> SourceKey {
        SourceKey::new(EXISTING, namespace)
    }

    /// Whether this is a namespace's `@existing` catalog.
    pub fn is_existing(&self) -> bool {
        self.name == EXISTING && !self.namespace.is_empty()
    }
}

impl std::fmt::Display for SourceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // OLM's `SourceKey.String()`.
        write!(f, "{}/{}", self.name, self.namespace)
    }
}

/// The name of the virtual catalog of installed CSVs.
pub const EXISTING: &str = "@existing";

/// One property as the resolver sees it: its type and its value as JSON text.
#[derive(Debug, Clone)]
pub struct ApiProperty<'a> {
    /// `type`.
    pub ty: Cow<'a, str>,
    /// `value`, JSON text.
    pub value: Cow<'a, str>,
}

/// What the predicates read of a bundle's properties, parsed once.
#[derive(Debug)]
pub struct Props<'a> {
    /// Every property, in the order the cache entry has them.
    pub list: Vec<ApiProperty<'a>>,
    /// `olm.package` values that decode.
    pub packages: Vec<PackageProperty>,
    /// `olm.gvk` values that decode.
    pub gvks: Vec<Gvk>,
    /// `olm.label` values that decode.
    pub labels: Vec<String>,
    /// Whether an `olm.deprecated` property is there (the bundle is then prohibited).
    pub deprecated: bool,
    /// The `properties` list a CEL rule sees, built on first use.
    cel: OnceLock<Value>,
}

impl<'a> Props<'a> {
    /// The properties of a bundle as the registry serves them and the cache keeps them.
    pub fn of(bundle: &'a Bundle) -> Props<'a> {
        let mut list: Vec<ApiProperty<'a>> = Vec::with_capacity(bundle.properties.len() + 2);
        let mut legacy: Vec<ApiProperty<'a>> = Vec::new();
        for p in &bundle.properties {
            if p.ty == property::PROPERTY_BUNDLE_OBJECT || p.ty == property::PROPERTY_CSV_METADATA {
                continue;
            }
            let value = p.value.text().unwrap_or("null");
            list.push(ApiProperty {
                ty: Cow::Borrowed(&p.ty),
                value: Cow::Borrowed(value),
            });
            // The registry's legacy `Dependencies`, turned back into properties by
            // `legacyDependenciesToProperties` and appended after every property.
            match p.ty.as_str() {
                property::PROPERTY_GVK_REQUIRED => {
                    if let Ok(g) = serde_json::from_str::<Gvk>(value) {
                        legacy.push(ApiProperty {
                            ty: Cow::Borrowed(property::PROPERTY_GVK_REQUIRED),
                            value: Cow::Owned(
                                serde_json::json!({"group": g.group, "version": g.version, "kind": g.kind})
                                    .to_string(),
                            ),
                        });
                    }
                }
                property::PROPERTY_PACKAGE_REQUIRED => {
                    if let Ok(r) = serde_json::from_str::<PackageRequired>(value) {
                        legacy.push(ApiProperty {
                            ty: Cow::Borrowed(property::PROPERTY_PACKAGE_REQUIRED),
                            value: Cow::Owned(
                                serde_json::json!({"packageName": r.package_name, "versionRange": r.version_range})
                                    .to_string(),
                            ),
                        });
                    }
                }
                _ => {}
            }
        }
        list.extend(legacy);
        let mut props = Props {
            list,
            packages: Vec::new(),
            gvks: Vec::new(),
            labels: Vec::new(),
            deprecated: false,
            cel: OnceLock::new(),
        };
        for p in &props.list {
            match &*p.ty {
                property::PROPERTY_PACKAGE => {
                    if let Ok(v) = serde_json::from_str::<PackageProperty>(&p.value) {
                        props.packages.push(v);
                    }
                }
                property::PROPERTY_GVK => {
                    if let Ok(v) = serde_json::from_str::<Gvk>(&p.value) {
                        props.gvks.push(v);
                    }
                }
                PROPERTY_LABEL => {
                    if let Ok(v) = serde_json::from_str::<LabelProperty>(&p.value) {
                        props.labels.push(v.label);
                    }
                }
                PROPERTY_DEPRECATED => props.deprecated = true,
                _ => {}
            }
        }
        props
    }

    /// The `properties` variable of a CEL rule: `{type, value}` maps, each value decoded as Go
    /// decodes JSON into `interface{}` (numbers are doubles); a value that does not decode
    /// leaves a null in its place (`celPredicate.Test`).
    pub fn cel_properties(&self) -> &Value {
        self.cel.get_or_init(|| {
            Value::Array(
                self.list
                    .iter()
                    .map(|p| match serde_json::from_str::<Value>(&p.value) {
                        Ok(v) => {
                            serde_json::json!({"type": &*p.ty, "value": numbers_as_doubles(v)})
                        }
                        Err(_) => Value::Null,
                    })
                    .collect(),
            )
        })
    }
}

/// Go's `encoding/json` decodes every JSON number into a `float64`.
fn numbers_as_doubles(v: Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_doubles).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, numbers_as_doubles(v)))
                .collect(),
        ),
        other => other,
    }
}

/// Property type `olm.label`.
pub const PROPERTY_LABEL: &str = "olm.label";
/// Property type `olm.label.required`.
pub const PROPERTY_LABEL_REQUIRED: &str = "olm.label.required";
/// Property type `olm.deprecated` (`opregistry.DeprecatedType`).
pub const PROPERTY_DEPRECATED: &str = "olm.deprecated";

/// One cache entry: a bundle as listed by one channel of one catalog.
#[derive(Debug)]
pub struct Entry<'a> {
    /// Index of its catalog in the resolver's sources.
    pub source: usize,
    /// The bundle.
    pub bundle: &'a Bundle,
    /// Its package.
    pub package: &'a str,
    /// The channel that lists it (empty for an installed CSV).
    pub channel: &'a str,
    /// Whether that channel is the package's default channel.
    pub default_channel: bool,
    /// The channel entry's `replaces` (for an installed CSV, the CSV it replaced).
    pub replaces: Option<Cow<'a, str>>,
    /// The channel entry's `skips`.
    pub skips: &'a [String],
    /// The channel entry's `skipRange`, when it parses.
    pub skip_range: Option<blang::Range>,
    /// The version, read with `ParseTolerant` (`None` when it does not parse).
    pub version: Option<semver::Version>,
    /// Index of the bundle's properties in [`Cache::props`].
    pub props: usize,
    /// For an installed CSV, its index in [`Cache::installed`].
    pub installed: Option<usize>,
}

/// An installed CSV, for the namespace's `@existing` catalog.
#[derive(Debug, Clone)]
pub struct Installed<'a> {
    /// The bundle it was installed from (its properties are what the CSV's
    /// `operatorframework.io/properties` annotation carries).
    pub bundle: &'a Bundle,
    /// The CSV it replaced (`spec.replaces`), when it was an upgrade.
    pub replaces: Option<String>,
    /// The Subscription whose `status.installedCSV` it is, if any.
    pub subscription: Option<String>,
}

/// A visible catalog: its key, its priority and its content.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    /// Where it is.
    pub key: SourceKey,
    /// `spec.priority`.
    pub priority: i32,
    /// Its content (`None` for the `@existing` catalog).
    pub catalog: Option<&'a Catalog>,
}

/// Every entry of every visible catalog, with indexes by package and by provided API.
#[derive(Debug)]
pub struct Cache<'a> {
    /// The catalogs, then `@existing` when something is installed.
    pub sources: Vec<OwnedSource<'a>>,
    /// Every entry, catalog by catalog in catalog order, each catalog's in the order the
    /// registry lists them (package, channel, entry), the installed CSVs last.
    pub entries: Vec<Entry<'a>>,
    /// Properties by bundle (entries of one bundle in several channels share them).
    pub props: Vec<Props<'a>>,
    /// The installed CSVs of the namespace (the `@existing` entries, in this order).
    pub installed: Vec<Installed<'a>>,
    /// Entry indexes by package name.
    by_package: HashMap<String, Vec<usize>>,
    /// Entry indexes by provided `olm.gvk`.
    by_gvk: HashMap<(String, String, String), Vec<usize>>,
    /// How many entries, properties and sources the catalogs have (the installed CSVs come
    /// after them).
    catalog_entries: usize,
    catalog_props: usize,
    catalog_sources: usize,
}

/// A catalog of the cache, with its key.
#[derive(Debug, Clone)]
pub struct OwnedSource<'a> {
    /// Where it is.
    pub key: SourceKey,
    /// `spec.priority`.
    pub priority: i32,
    /// Its content (`None` for `@existing`).
    pub catalog: Option<&'a Catalog>,
}

impl<'a> Cache<'a> {
    /// The cache of these catalogs, plus the installed CSVs of `namespace` as `@existing`.
    pub fn new(sources: &[Source<'a>], namespace: &str, installed: &[Installed<'a>]) -> Cache<'a> {
        let mut cache = Cache::of_catalogs(sources);
        cache.set_installed(namespace, installed);
        cache
    }

    /// The cache of these catalogs, nothing installed.
    pub fn of_catalogs(sources: &[Source<'a>]) -> Cache<'a> {
        let mut cache = Cache {
            sources: Vec::with_capacity(sources.len() + 1),
            entries: Vec::new(),
            props: Vec::new(),
            installed: Vec::new(),
            by_package: HashMap::new(),
            by_gvk: HashMap::new(),
            catalog_entries: 0,
            catalog_props: 0,
            catalog_sources: 0,
        };
        for s in sources {
            let source = cache.sources.len();
            cache.sources.push(OwnedSource {
                key: s.key.clone(),
                priority: s.priority,
                catalog: s.catalog,
            });
            let Some(catalog) = s.catalog else { continue };
            for package in &catalog.packages {
                let first_props = cache.props.len();
                for b in &package.bundles {
                    cache.props.push(Props::of(b));
                }
                for channel in &package.channels {
                    for e in &channel.entries {
                        let Ok(i) = package
                            .bundles
                            .binary_search_by(|b| b.name.as_str().cmp(&e.name))
                        else {
                            continue;
                        };
                        let bundle = &package.bundles[i];
                        cache.entries.push(Entry {
                            source,
                            bundle,
                            package: &package.name,
                            channel: &channel.name,
                            default_channel: channel.name == package.default_channel,
                            replaces: e
                                .replaces
                                .as_deref()
                                .filter(|r| !r.is_empty())
                                .map(Cow::Borrowed),
                            skips: &e.skips,
                            skip_range: e
                                .skip_range
                                .as_deref()
                                .and_then(|r| blang::Range::parse(r).ok()),
                            version: crate::version::parse_tolerant(&bundle.version_text).ok(),
                            props: first_props + i,
                            installed: None,
                        });
                    }
                }
            }
        }
        for i in 0..cache.entries.len() {
            cache.index(i);
        }
        cache.catalog_entries = cache.entries.len();
        cache.catalog_props = cache.props.len();
        cache.catalog_sources = cache.sources.len();
        cache
    }

    /// Replace the namespace's installed CSVs (its `@existing` catalog, after the catalogs).
    pub fn set_installed(&mut self, namespace: &str, installed: &[Installed<'a>]) {
        let base = self.catalog_entries;
        for list in self.by_package.values_mut() {
            while list.last().is_some_and(|&i| i >= base) {
                list.pop();
            }
        }
        for list in self.by_gvk.values_mut() {
            while list.last().is_some_and(|&i| i >= base) {
                list.pop();
            }
        }
        self.entries.truncate(base);
        self.props.truncate(self.catalog_props);
        self.sources.truncate(self.catalog_sources);
        self.installed = installed.to_vec();
        if installed.is_empty() {
            return;
        }
        let source = self.sources.len();
        self.sources.push(OwnedSource {
            key: SourceKey::existing(namespace),
            priority: 0,
            catalog: None,
        });
        for (index, csv) in installed.iter().enumerate() {
            let props = self.props.len();
            self.props.push(Props::of(csv.bundle));
            self.entries.push(Entry {
                source,
                bundle: csv.bundle,
                package: &csv.bundle.package,
                channel: "",
                default_channel: false,
                replaces: csv.replaces.clone().map(Cow::Owned),
                skips: &[],
                skip_range: None,
                version: crate::version::parse_tolerant(&csv.bundle.version_text).ok(),
                props,
                installed: Some(index),
            });
            self.index(self.entries.len() - 1);
        }
    }

    /// Index entry `i` by its package (and any `olm.package` property's name, which
    /// `PkgPredicate` also matches) and by the APIs it provides.
    fn index(&mut self, i: usize) {
        let e = &self.entries[i];
        self.by_package
            .entry(e.package.to_owned())
            .or_default()
            .push(i);
        let props = &self.props[e.props];
        for p in &props.packages {
            if p.package_name != e.package {
                let list = self.by_package.entry(p.package_name.clone()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        for g in &props.gvks {
            self.by_gvk
                .entry((g.group.clone(), g.version.clone(), g.kind.clone()))
                .or_default()
                .push(i);
        }
    }

    /// The properties of an entry.
    pub fn props_of(&self, entry: usize) -> &Props<'a> {
        &self.props[self.entries[entry].props]
    }

    /// Entries of `package`: by their package, or by an `olm.package` property naming it.
    pub fn of_package(&self, package: &str) -> &[usize] {
        self.by_package.get(package).map_or(&[], Vec::as_slice)
    }

    /// Entries providing this API.
    pub fn of_gvk(&self, group: &str, version: &str, kind: &str) -> &[usize] {
        self.by_gvk
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
            .map_or(&[], Vec::as_slice)
    }
}
