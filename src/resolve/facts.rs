//! What resolution needs to know about one bundle beyond its version: cluster-fit limits
//! (`olm.maxOpenShiftVersion`, `minKubeVersion`) and the facts the profile checks read
//! (install modes, webhooks, APIServices, dependencies).
//!
//! The CSV facts come from the `olm.csv.metadata` property when present, else from the CSV
//! among the bundle's embedded `olm.bundle.object`s; a bundle with neither has unknown facts.

use serde_json::Value;

use crate::catalog::model::Bundle;

/// A bundle's `olm.maxOpenShiftVersion`, read as cluster-olm-operator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MaxOpenShiftVersion {
    /// No such property.
    Absent,
    /// A valid `major.minor`.
    Valid {
        /// Major.
        major: u64,
        /// Minor.
        minor: u64,
        /// The raw JSON text.
        raw: String,
    },
    /// Present but unusable (more than one, empty, not `X.Y`).
    Invalid {
        /// Why.
        reason: String,
    },
}

/// Read `olm.maxOpenShiftVersion` from the raw property values. A JSON string or a JSON number
/// whose raw text is `X.Y` (a trailing `.0` patch is tolerated, as OLM v0 does); the raw text is
/// used so that `4.10` is never read as `4.1`.
pub fn max_openshift_version(bundle: &Bundle) -> MaxOpenShiftVersion {
    let text = match bundle.max_openshift_version_raw() {
        None => return MaxOpenShiftVersion::Absent,
        Some(Err(e)) => {
            return MaxOpenShiftVersion::Invalid {
                reason: e.to_string(),
            };
        }
        Some(Ok(text)) => text,
    };
    let raw = text.to_string();
    let parts: Vec<&str> = text.split('.').collect();
    let num = |s: &str| {
        (!s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse::<u64>().ok())
        .flatten()
    };
    let valid = match parts.as_slice() {
        [maj, min] => num(maj).zip(num(min)),
        [maj, min, "0"] => num(maj).zip(num(min)),
        _ => None,
    };
    match valid {
        Some((major, minor)) if major > 0 => MaxOpenShiftVersion::Valid {
            major,
            minor,
            raw: raw.to_string(),
        },
        _ => MaxOpenShiftVersion::Invalid {
            reason: format!(
                "olm.maxOpenShiftVersion {raw} is not a major.minor version like \"4.14\""
            ),
        },
    }
}

/// CSV facts the checks read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvFacts {
    /// Supported install modes (`AllNamespaces`, `OwnNamespace`, …).
    pub install_modes: Vec<String>,
    /// `spec.minKubeVersion`.
    pub min_kube_version: Option<String>,
    /// Number of webhook definitions (types listed).
    pub webhooks: Vec<String>,
    /// Owned APIService names.
    pub api_services: Vec<String>,
    /// `operatorframework.io/suggested-namespace`.
    pub suggested_namespace: Option<String>,
}

/// Where the CSV facts came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvSource {
    /// `olm.csv.metadata`.
    Metadata(CsvFacts),
    /// The embedded ClusterServiceVersion.
    Embedded(CsvFacts),
    /// Neither is in the catalog.
    Unknown,
    /// Present but unreadable.
    Invalid(String),
}

impl CsvSource {
    /// The facts, when known.
    pub fn facts(&self) -> Option<&CsvFacts> {
        match self {
            CsvSource::Metadata(f) | CsvSource::Embedded(f) => Some(f),
            _ => None,
        }
    }
}

/// Read the CSV facts of a bundle.
pub fn csv_facts(bundle: &Bundle) -> CsvSource {
    if bundle.properties_of("olm.csv.metadata").next().is_some() {
        return match bundle.csv_metadata() {
            Some(v) => CsvSource::Metadata(facts_from(&v, &v)),
            None => CsvSource::Invalid("olm.csv.metadata is not valid JSON".into()),
        };
    }
    if !bundle.has_bundle_objects() {
        return CsvSource::Unknown;
    }
    match bundle.csv_bundle_object() {
        Ok(Some(csv)) => CsvSource::Embedded(facts_from(
            csv.get("spec").unwrap_or(&Value::Null),
            csv.get("metadata").unwrap_or(&Value::Null),
        )),
        Ok(None) => CsvSource::Unknown,
        Err(e) => CsvSource::Invalid(crate::error_chain(&e)),
    }
}

/// Facts from a CSV `spec` (or `olm.csv.metadata`, which has the same field names) and the
/// object holding `annotations`.
fn facts_from(spec: &Value, meta: &Value) -> CsvFacts {
    let strs = |v: Option<&Value>, key: &str| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.get(key).and_then(Value::as_str).map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let install_modes = spec
        .get("installModes")
        .and_then(Value::as_array)
        .map(|modes| {
            modes
                .iter()
                .filter(|m| m.get("supported").and_then(Value::as_bool) == Some(true))
                .filter_map(|m| m.get("type").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let webhooks = spec
        .get("webhookdefinitions")
        .and_then(Value::as_array)
        .map(|w| {
            w.iter()
                .map(|d| {
                    let ty = d.get("type").and_then(Value::as_str).unwrap_or("unknown");
                    let name = d.get("generateName").and_then(Value::as_str).unwrap_or("");
                    format!("{ty} webhook {name}").trim_end().to_string()
                })
                .collect()
        })
        .unwrap_or_default();
    let api_services = strs(spec.pointer("/apiservicedefinitions/owned"), "name");
    CsvFacts {
        install_modes,
        min_kube_version: spec
            .get("minKubeVersion")
            .and_then(Value::as_str)
            .map(String::from)
            .filter(|s| !s.is_empty()),
        webhooks,
        api_services,
        suggested_namespace: meta
            .pointer("/annotations/operatorframework.io~1suggested-namespace")
            .and_then(Value::as_str)
            .map(String::from)
            .filter(|s| !s.is_empty()),
    }
}

/// A dependency declared by a bundle property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// `olm.package.required`, `olm.gvk.required` or `olm.constraint`.
    pub kind: String,
    /// The value, compact JSON.
    pub value: String,
}

/// Every dependency property (OLM v1 and phase 0 both refuse bundles that have any).
pub fn dependencies(bundle: &Bundle) -> Vec<Dependency> {
    bundle
        .properties
        .iter()
        .filter(|p| {
            matches!(
                p.ty.as_str(),
                "olm.package.required" | "olm.gvk.required" | "olm.constraint"
            )
        })
        .map(|p| {
            let text = p.value.text().unwrap_or("null");
            Dependency {
                kind: p.ty.clone(),
                value: serde_json::from_str::<Value>(text)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| text.to_string()),
            }
        })
        .collect()
}

/// Parse a `minKubeVersion` like OLM v0 (coreos/go-semver after stripping `v`): `X.Y.Z`. Returns
/// `(major, minor, patch)`.
pub fn parse_kube_version(text: &str) -> Option<(u64, u64, u64)> {
    let t = text.trim().trim_start_matches('v');
    let core = t.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
    let v = (it.next()??, it.next()??, it.next().flatten().unwrap_or(0));
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Origin, Property};

    fn bundle_with(props: &[(&str, &str)]) -> Bundle {
        Bundle {
            name: "b.v1.0.0".into(),
            package: "b".into(),
            image: String::new(),
            version_text: "1.0.0".into(),
            release: None,
            version: Some(semver::Version::new(1, 0, 0)),
            properties: props
                .iter()
                .map(|(t, v)| Property {
                    ty: t.to_string(),
                    value: crate::catalog::property::PropertyValue::json(v).unwrap(),
                })
                .collect(),
            related_images: vec![],
            channels: vec![],
            deprecation: None,
            origin: Origin::default(),
            csv: Default::default(),
        }
    }

    mod max_openshift_version {
        use super::*;

        #[test]
        fn number_keeps_its_raw_text() {
            let b = bundle_with(&[("olm.maxOpenShiftVersion", "4.10")]);
            assert_eq!(
                max_openshift_version(&b),
                MaxOpenShiftVersion::Valid {
                    major: 4,
                    minor: 10,
                    raw: "4.10".into()
                }
            );
        }

        #[test]
        fn string_and_trailing_zero_patch() {
            let b = bundle_with(&[("olm.maxOpenShiftVersion", "\"4.14.0\"")]);
            assert!(matches!(
                max_openshift_version(&b),
                MaxOpenShiftVersion::Valid { minor: 14, .. }
            ));
        }

        #[test]
        fn absent_invalid_and_duplicated() {
            assert_eq!(
                max_openshift_version(&bundle_with(&[])),
                MaxOpenShiftVersion::Absent
            );
            for bad in ["\"\"", "\"v4.14\"", "\"4\"", "true", "\"4.14.1\""] {
                let b = bundle_with(&[("olm.maxOpenShiftVersion", bad)]);
                assert!(
                    matches!(
                        max_openshift_version(&b),
                        MaxOpenShiftVersion::Invalid { .. }
                    ),
                    "{bad}"
                );
            }
            let b = bundle_with(&[
                ("olm.maxOpenShiftVersion", "\"4.14\""),
                ("olm.maxOpenShiftVersion", "\"4.15\""),
            ]);
            assert!(matches!(
                max_openshift_version(&b),
                MaxOpenShiftVersion::Invalid { .. }
            ));
        }
    }

    #[test]
    fn csv_metadata_facts() {
        let b = bundle_with(&[(
            "olm.csv.metadata",
            r#"{"annotations":{"operatorframework.io/suggested-namespace":"ns1"},"installModes":[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}],"minKubeVersion":"1.25.0"}"#,
        )]);
        let CsvSource::Metadata(f) = csv_facts(&b) else {
            panic!()
        };
        assert_eq!(f.install_modes, ["OwnNamespace"]);
        assert_eq!(f.min_kube_version.as_deref(), Some("1.25.0"));
        assert_eq!(f.suggested_namespace.as_deref(), Some("ns1"));
    }

    #[test]
    fn dependencies_are_listed() {
        let b = bundle_with(&[
            (
                "olm.package.required",
                r#"{"packageName":"x","versionRange":">=1.0.0"}"#,
            ),
            ("olm.gvk", "{}"),
        ]);
        assert_eq!(dependencies(&b).len(), 1);
    }

    #[test]
    fn kube_versions() {
        assert_eq!(parse_kube_version("v1.27.3"), Some((1, 27, 3)));
        assert_eq!(parse_kube_version("1.25"), Some((1, 25, 0)));
        assert_eq!(parse_kube_version("x"), None);
    }
}
