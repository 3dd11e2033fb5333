//! Dependency predicates: what a bundle's dependency properties require of another bundle,
//! read and tested as OLM v0 does.
//!
//! Upstream: OLM `resolver/resolver.go` (`predicateConverter`, `legacyPredicateParsers`,
//! `newPackageRequiredPredicate`), `resolver/cache/predicates.go` (each predicate's `Test` and
//! `String`) and operator-framework/api `pkg/constraints/constraint.go` (`olm.constraint`: strict
//! JSON of at most 128 KiB, the first of `gvk`, `package`, `all`, `any`, `not`, `cel` that is
//! set wins).
//!
//! | property | predicate |
//! |---|---|
//! | `olm.package.required {packageName, versionRange}` | package and blang `versionRange` |
//! | `olm.gvk.required {group, version, kind}` | provides that `olm.gvk` |
//! | `olm.label.required {label}` | has that `olm.label` |
//! | `olm.constraint` | `gvk`, `package`, `all` (and), `any` (or), `not` (none), `cel` |
//!
//! Every other property type is ignored. A property that does not decode, a range that does
//! not parse, a CEL rule that does not compile, or an empty constraint fails the whole
//! resolution (the error is returned before anything is solved).

use serde_json::{Map, Value};

use super::cel;
use super::entry::{Cache, Entry, PROPERTY_LABEL_REQUIRED};
use crate::catalog::property::{self, Gvk, PackageRequired};
use crate::version::blang;

/// What a dependency requires of a bundle.
#[derive(Debug)]
pub enum Predicate {
    /// `PkgPredicate`.
    Package(String),
    /// `VersionInRangePredicate`.
    VersionInRange {
        /// The range.
        range: blang::Range,
    },
    /// `ProvidingAPIPredicate`.
    ProvidesApi {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
    },
    /// `LabelPredicate`.
    Label(String),
    /// `And`: every one (true when empty).
    And(Vec<Predicate>),
    /// `Or`: any one.
    Or(Vec<Predicate>),
    /// `Not`: none of them.
    Not(Vec<Predicate>),
    /// `celPredicate`.
    Cel {
        /// The compiled rule.
        rule: Box<cel::Rule>,
        /// The rule as written.
        text: String,
        /// `failureMessage`.
        failure_message: String,
    },
}

/// A dependency property OLM v0 cannot read: the resolution fails with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

/// The most bytes an `olm.constraint` value may have (`maxConstraintSize`, `2 << 16`).
pub const MAX_CONSTRAINT_SIZE: usize = 2 << 16;

impl Predicate {
    /// The predicate of one property (`predicateForProperty`): `None` for a type that states
    /// no dependency.
    pub fn of_property(ty: &str, value: &str) -> Result<Option<Predicate>, Invalid> {
        match ty {
            property::PROPERTY_CONSTRAINT => constraint_property(value).map(Some),
            property::PROPERTY_GVK_REQUIRED => {
                let g: Gvk = serde_json::from_str(value).map_err(|e| Invalid(go_json_error(&e)))?;
                Ok(Some(Predicate::ProvidesApi {
                    group: g.group,
                    version: g.version,
                    kind: g.kind,
                }))
            }
            property::PROPERTY_PACKAGE_REQUIRED => {
                let r: PackageRequired =
                    serde_json::from_str(value).map_err(|e| Invalid(go_json_error(&e)))?;
                package_required(&r.package_name, &r.version_range).map(Some)
            }
            PROPERTY_LABEL_REQUIRED => {
                let l: crate::catalog::property::LabelProperty =
                    serde_json::from_str(value).map_err(|e| Invalid(go_json_error(&e)))?;
                Ok(Some(Predicate::Label(l.label)))
            }
            _ => Ok(None),
        }
    }

    /// Whether an entry satisfies the predicate (`Test`).
    pub fn test(&self, cache: &Cache<'_>, entry: usize) -> bool {
        let e: &Entry<'_> = &cache.entries[entry];
        let props = cache.props_of(entry);
        match self {
            Predicate::Package(name) => {
                props.packages.iter().any(|p| &p.package_name == name) || e.package == name
            }
            Predicate::VersionInRange { range } => {
                for p in &props.packages {
                    if let Ok(v) = crate::version::parse_bundle_version(&p.version)
                        && range.matches(&v)
                    {
                        return true;
                    }
                }
                e.version.as_ref().is_some_and(|v| range.matches(v))
            }
            Predicate::ProvidesApi {
                group,
                version,
                kind,
            } => props
                .gvks
                .iter()
                .any(|g| &g.group == group && &g.version == version && &g.kind == kind),
            Predicate::Label(l) => props.labels.iter().any(|x| x == l),
            Predicate::And(ps) => ps.iter().all(|p| p.test(cache, entry)),
            Predicate::Or(ps) => ps.iter().any(|p| p.test(cache, entry)),
            Predicate::Not(ps) => !ps.iter().any(|p| p.test(cache, entry)),
            Predicate::Cel { rule, .. } => cel::evaluate(rule, props.cel_properties()),
        }
    }

    /// Every entry of the cache that satisfies the predicate, in cache order. Package and API
    /// predicates are looked up in the cache's indexes; the others are tested on every entry.
    pub fn matches(&self, cache: &Cache<'_>) -> Vec<usize> {
        match self.narrow(cache) {
            Some(mut ids) => {
                ids.sort_unstable();
                ids.dedup();
                ids.retain(|&i| self.test(cache, i));
                ids
            }
            None => (0..cache.entries.len())
                .filter(|&i| self.test(cache, i))
                .collect(),
        }
    }

    /// A superset of the matching entries, when an index gives one.
    fn narrow(&self, cache: &Cache<'_>) -> Option<Vec<usize>> {
        match self {
            Predicate::Package(name) => Some(cache.of_package(name).to_vec()),
            Predicate::ProvidesApi {
                group,
                version,
                kind,
            } => Some(cache.of_gvk(group, version, kind).to_vec()),
            Predicate::And(ps) => ps.iter().find_map(|p| p.narrow(cache)),
            Predicate::Or(ps) => {
                let mut all = Vec::new();
                for p in ps {
                    all.extend(p.narrow(cache)?);
                }
                Some(all)
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Predicate {
    /// OLM's `String()` of each predicate, which its messages quote.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let join = |f: &mut std::fmt::Formatter<'_>, ps: &[Predicate], sep: &str| {
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{p}")?;
            }
            Ok(())
        };
        match self {
            Predicate::Package(name) => write!(f, "with package: {name}"),
            Predicate::VersionInRange { range } => {
                write!(f, "with version in range: {}", range.as_str())
            }
            Predicate::ProvidesApi {
                group,
                version,
                kind,
            } => write!(
                f,
                "providing an API with group: {group}, version: {version}, kind: {kind}"
            ),
            Predicate::Label(l) => write!(f, "with label: {l}"),
            Predicate::And(ps) => join(f, ps, " and "),
            Predicate::Or(ps) => join(f, ps, " or "),
            Predicate::Not(ps) => join(f, ps, " and not "),
            Predicate::Cel {
                text,
                failure_message,
                ..
            } => write!(
                f,
                "with constraint: {} and message: {}",
                go_quote(text),
                go_quote(failure_message)
            ),
        }
    }
}

/// `newPackageRequiredPredicate`: the package, and a version in the blang range.
fn package_required(name: &str, range: &str) -> Result<Predicate, Invalid> {
    let range = blang::Range::parse(range).map_err(|e| Invalid(e.to_string()))?;
    Ok(Predicate::And(vec![
        Predicate::Package(name.to_owned()),
        Predicate::VersionInRange { range },
    ]))
}

/// `predicateForConstraintProperty`.
fn constraint_property(value: &str) -> Result<Predicate, Invalid> {
    if value.len() > MAX_CONSTRAINT_SIZE {
        return Err(Invalid(format!(
            "parse olm.constraint: olm.constraint value is greater than max constraint size {MAX_CONSTRAINT_SIZE} bytes"
        )));
    }
    let v: Value = serde_json::from_str(value)
        .map_err(|e| Invalid(format!("parse olm.constraint: {}", go_json_error(&e))))?;
    let c = Constraint::decode(&v, "Constraint")
        .map_err(|e| Invalid(format!("parse olm.constraint: {e}")))?;
    c.predicate()
        .map_err(|e| Invalid(format!("convert olm.constraint to resolver predicate: {e}")))
}

/// `constraints.Constraint`, decoded as Go's `encoding/json` does with `DisallowUnknownFields`.
#[derive(Debug, Default)]
struct Constraint {
    failure_message: String,
    cel: Option<String>,
    package: Option<(String, String)>,
    gvk: Option<(String, String, String)>,
    all: Option<Vec<Constraint>>,
    any: Option<Vec<Constraint>>,
    not: Option<Vec<Constraint>>,
}

impl Constraint {
    fn decode(v: &Value, ty: &str) -> Result<Constraint, String> {
        let mut c = Constraint::default();
        let Some(obj) = object(v, ty)? else {
            return Ok(c);
        };
        for (key, value) in obj {
            match field(
                key,
                &[
                    "failureMessage",
                    "cel",
                    "package",
                    "gvk",
                    "all",
                    "any",
                    "not",
                ],
            ) {
                Some("failureMessage") => c.failure_message = string(value, ty, "failureMessage")?,
                Some("cel") => {
                    c.cel = match object(value, "constraints.Cel")? {
                        None => None,
                        Some(o) => {
                            let mut rule = String::new();
                            for (k, v) in o {
                                match field(k, &["rule"]) {
                                    Some(_) => rule = string(v, "Cel", "rule")?,
                                    None => return Err(unknown(k)),
                                }
                            }
                            Some(rule)
                        }
                    }
                }
                Some("package") => {
                    c.package = match object(value, "constraints.PackageConstraint")? {
                        None => None,
                        Some(o) => {
                            let (mut name, mut range) = (String::new(), String::new());
                            for (k, v) in o {
                                match field(k, &["packageName", "versionRange"]) {
                                    Some("packageName") => {
                                        name = string(v, "PackageConstraint", "packageName")?
                                    }
                                    Some(_) => {
                                        range = string(v, "PackageConstraint", "versionRange")?
                                    }
                                    None => return Err(unknown(k)),
                                }
                            }
                            Some((name, range))
                        }
                    }
                }
                Some("gvk") => {
                    c.gvk = match object(value, "constraints.GVKConstraint")? {
                        None => None,
                        Some(o) => {
                            let (mut g, mut k2, mut ver) =
                                (String::new(), String::new(), String::new());
                            for (k, v) in o {
                                match field(k, &["group", "kind", "version"]) {
                                    Some("group") => g = string(v, "GVKConstraint", "group")?,
                                    Some("kind") => k2 = string(v, "GVKConstraint", "kind")?,
                                    Some(_) => ver = string(v, "GVKConstraint", "version")?,
                                    None => return Err(unknown(k)),
                                }
                            }
                            Some((g, ver, k2))
                        }
                    }
                }
                Some(which @ ("all" | "any" | "not")) => {
                    let list = match object(value, "constraints.CompoundConstraint")? {
                        None => None,
                        Some(o) => {
                            let mut list = Vec::new();
                            for (k, v) in o {
                                match field(k, &["constraints"]) {
                                    Some(_) => {
                                        list = match v {
                                            Value::Null => Vec::new(),
                                            Value::Array(items) => items
                                                .iter()
                                                .map(|i| Constraint::decode(i, "Constraint"))
                                                .collect::<Result<_, _>>()?,
                                            other => {
                                                return Err(type_error(
                                                    other,
                                                    "CompoundConstraint.constraints",
                                                    "[]constraints.Constraint",
                                                ));
                                            }
                                        }
                                    }
                                    None => return Err(unknown(k)),
                                }
                            }
                            Some(list)
                        }
                    };
                    match which {
                        "all" => c.all = list,
                        "any" => c.any = list,
                        _ => c.not = list,
                    }
                }
                _ => return Err(unknown(key)),
            }
        }
        Ok(c)
    }

    /// `convertConstraints` of one constraint: the first kind set, in Go's `switch` order.
    fn predicate(&self) -> Result<Predicate, String> {
        if let Some((group, version, kind)) = &self.gvk {
            return Ok(Predicate::ProvidesApi {
                group: group.clone(),
                version: version.clone(),
                kind: kind.clone(),
            });
        }
        if let Some((name, range)) = &self.package {
            return package_required(name, range).map_err(|e| e.0);
        }
        let list = |cs: &[Constraint]| {
            cs.iter()
                .map(Constraint::predicate)
                .collect::<Result<Vec<_>, _>>()
        };
        if let Some(all) = &self.all {
            return Ok(Predicate::And(list(all)?));
        }
        if let Some(any) = &self.any {
            return Ok(Predicate::Or(list(any)?));
        }
        if let Some(not) = &self.not {
            return Ok(Predicate::Not(list(not)?));
        }
        if let Some(rule) = &self.cel {
            let compiled = cel::compile(rule)?;
            return Ok(Predicate::Cel {
                rule: Box::new(compiled),
                text: rule.clone(),
                failure_message: self.failure_message.clone(),
            });
        }
        Err("constraint is empty".into())
    }
}

/// An object, `None` for `null` (a nil pointer), or Go's type error.
fn object<'v>(v: &'v Value, ty: &str) -> Result<Option<&'v Map<String, Value>>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Object(o) => Ok(Some(o)),
        other => Err(format!(
            "json: cannot unmarshal {} into Go value of type {ty}",
            json_kind(other)
        )),
    }
}

/// A string field (`null` leaves it empty).
fn string(v: &Value, owner: &str, name: &str) -> Result<String, String> {
    match v {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        other => Err(type_error(other, &format!("{owner}.{name}"), "string")),
    }
}

/// Which of `fields` a JSON key names: an exact match, else a case-insensitive one.
fn field<'f>(key: &str, fields: &[&'f str]) -> Option<&'f str> {
    fields
        .iter()
        .find(|f| **f == key)
        .or_else(|| fields.iter().find(|f| f.eq_ignore_ascii_case(key)))
        .copied()
}

fn unknown(key: &str) -> String {
    format!("json: unknown field {key:?}")
}

fn type_error(v: &Value, field: &str, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {field} of type {go_type}",
        json_kind(v)
    )
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A decoding error, worded as Go's would be where that is easy.
fn go_json_error(e: &serde_json::Error) -> String {
    e.to_string()
}

/// Go's `%q` for the text OLM quotes (printable ASCII as is, the rest escaped).
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constraint(v: &str) -> Result<Predicate, Invalid> {
        Predicate::of_property("olm.constraint", v).map(Option::unwrap)
    }

    #[test]
    fn legacy_properties_become_predicates() {
        let p = Predicate::of_property(
            "olm.package.required",
            r#"{"packageName":"etcd","versionRange":">=0.9.0 <1.0.0"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            p.to_string(),
            "with package: etcd and with version in range: >=0.9.0 <1.0.0"
        );
        let p = Predicate::of_property(
            "olm.gvk.required",
            r#"{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            p.to_string(),
            "providing an API with group: etcd.database.coreos.com, version: v1beta2, kind: EtcdCluster"
        );
        // Go's decoder folds the case of keys.
        let p = Predicate::of_property(
            "olm.package.required",
            r#"{"PACKAGENAME":"a","versionrange":"1.0.0"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            p.to_string(),
            "with package: a and with version in range: 1.0.0"
        );
        assert!(Predicate::of_property("olm.gvk", "{}").unwrap().is_none());
        assert!(
            Predicate::of_property("olm.maxOpenShiftVersion", "4.14")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_range_that_does_not_parse_fails() {
        assert!(
            Predicate::of_property(
                "olm.package.required",
                r#"{"packageName":"a","versionRange":"1.0"}"#
            )
            .is_err()
        );
        assert!(Predicate::of_property("olm.package.required", r#"{"packageName":"a"}"#).is_err());
        assert!(Predicate::of_property("olm.package.required", r#"[1]"#).is_err());
    }

    #[test]
    fn constraints_are_strict_and_first_kind_wins() {
        let p = constraint(
            r#"{"failureMessage":"x","all":{"constraints":[{"gvk":{"group":"g","version":"v1","kind":"K"}},{"not":{"constraints":[{"package":{"packageName":"a","versionRange":">=1.0.0"}}]}}]}}"#,
        )
        .unwrap();
        assert_eq!(
            p.to_string(),
            "providing an API with group: g, version: v1, kind: K and with package: a and with version in range: >=1.0.0"
        );
        assert!(matches!(p, Predicate::And(ref v) if matches!(v[1], Predicate::Not(_))));
        let e = constraint(r#"{"gvk":{"group":"g","version":"v1","kind":"K","plural":"ks"}}"#)
            .unwrap_err();
        assert_eq!(e.0, "parse olm.constraint: json: unknown field \"plural\"");
        let e = constraint(r#"{"failureMessage":"only a message"}"#).unwrap_err();
        assert_eq!(
            e.0,
            "convert olm.constraint to resolver predicate: constraint is empty"
        );
        // gvk and package both set: gvk is read, as Go's switch reads it.
        let p = constraint(
            r#"{"package":{"packageName":"a","versionRange":"1.0.0"},"gvk":{"group":"g","version":"v","kind":"K"}}"#,
        )
        .unwrap();
        assert!(matches!(p, Predicate::ProvidesApi { .. }));
        let big = format!(
            r#"{{"failureMessage":"{}","cel":{{"rule":"true"}}}}"#,
            "x".repeat(MAX_CONSTRAINT_SIZE)
        );
        assert!(
            constraint(&big)
                .unwrap_err()
                .0
                .contains("max constraint size 131072")
        );
        let e = constraint(r#"{"cel":{"rule":"1"}}"#).unwrap_err();
        assert_eq!(
            e.0,
            "convert olm.constraint to resolver predicate: cel expressions must have type Bool"
        );
        let p = constraint(r#"{"cel":{"rule":"true"},"failureMessage":"needs \"x\""}"#).unwrap();
        assert_eq!(
            p.to_string(),
            r#"with constraint: "true" and message: "needs \"x\"""#
        );
        // An empty `all` matches everything.
        assert!(matches!(constraint(r#"{"all":{}}"#).unwrap(), Predicate::And(v) if v.is_empty()));
    }
}
