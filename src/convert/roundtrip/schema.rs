//! CRD schemas round-tripped without building the typed structs.
//!
//! Most of a CRD's bytes are its `openAPIV3Schema` trees: one apiextensions/v1
//! `JSONSchemaProps` (45 fields) per schema node. Decoding every node into k8s-openapi's
//! struct and encoding it again ([`super::round_trip`]) is most of the conversion's cost,
//! yet what it does to a schema node is simple: fields are kept in place or dropped
//! (unknown, `null`, or an `omitempty` zero), integral floats in `int64` fields become
//! integers, and any value of the wrong type is an error. [`crd`] does exactly that on the
//! schema trees and leaves the rest of the CRD to the typed round trip.
//!
//! Nothing here is a hand-written list of fields: which fields `JSONSchemaProps`,
//! `ExternalDocumentation` and `ValidationRule` have, and the type of each, are read from
//! k8s-openapi's own `Deserialize` impls by probing them ([`table`]); the `omitempty` zeros
//! come from the same generated list the typed decoder uses. Anything this reading does not
//! settle (a wrong type, a case-folded key in a union, a `null` list item, a missing
//! required field, a field type it does not know) makes [`crd`] give up, and the caller
//! takes the typed road, which reports errors in its own words. Debug builds run both roads
//! on every CRD and check that they agree.

use std::cell::RefCell;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;

use super::zero::{Zero, omitted};

/// The type of a field, as the probe found it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    /// `String`: a string.
    Str,
    /// `bool`.
    Bool,
    /// `i64`: an integral number.
    Int,
    /// `f64`: any number.
    Float,
    /// apiextensions `JSON`: any value, kept.
    Json,
    /// `Vec<_>`.
    Seq(Box<Shape>),
    /// `BTreeMap<String, _>`.
    Map(Box<Shape>),
    /// A struct, by its serde name.
    Struct(&'static str),
    /// `JSONSchemaPropsOrBool`: a schema or a boolean.
    OrBool,
    /// `JSONSchemaPropsOrArray`: a schema or a list of schemas.
    OrArray,
    /// `JSONSchemaPropsOrStringArray`: a schema or a list of strings.
    OrStringArray,
    /// Something else: the fast road does not know how Go would read it.
    Unknown,
}

/// One field of a struct.
#[derive(Debug)]
struct Field {
    name: &'static str,
    shape: Shape,
    /// k8s-openapi writes it even when the object lacks it (with its zero value).
    required: bool,
}

/// The fields of a struct and its `omitempty` zeros.
#[derive(Debug)]
struct Table {
    fields: Vec<Field>,
    /// Indices into `fields`, sorted by name.
    by_name: Vec<usize>,
    /// The fields written even when absent.
    required: Vec<&'static str>,
    omitempty: &'static [(&'static str, Zero)],
}

impl Table {
    fn field(&self, name: &str) -> Option<&Field> {
        self.by_name
            .binary_search_by(|i| self.fields[*i].name.cmp(name))
            .ok()
            .map(|i| &self.fields[self.by_name[i]])
    }
}

/// What a probe saw, outermost first.
#[derive(Debug)]
enum Step {
    Option,
    Seq,
    Map,
    Leaf(Shape),
}

/// Stops a probe once it has seen what it came for.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probe")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// A deserializer that records which `deserialize_*` calls a field's type makes.
struct Probe<'a>(&'a RefCell<Vec<Step>>);

impl Probe<'_> {
    fn leaf<T>(self, shape: Shape) -> Result<T, Stop> {
        self.0.borrow_mut().push(Step::Leaf(shape));
        Err(Stop)
    }
}

macro_rules! leaves {
    ($($method:ident => $shape:expr),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            self.leaf($shape)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        // The unions are told apart by their visitors, as the typed decoder does.
        let visitor = std::any::type_name::<V>();
        let shape = if visitor.contains("JSONSchemaPropsOrBool") {
            Shape::OrBool
        } else if visitor.contains("JSONSchemaPropsOrStringArray") {
            Shape::OrStringArray
        } else if visitor.contains("JSONSchemaPropsOrArray") {
            Shape::OrArray
        } else {
            Shape::Unknown
        };
        self.leaf(shape)
    }

    leaves! {
        deserialize_bool => Shape::Bool,
        deserialize_i64 => Shape::Int,
        deserialize_f64 => Shape::Float,
        deserialize_str => Shape::Str,
        deserialize_string => Shape::Str,
        deserialize_i8 => Shape::Unknown,
        deserialize_i16 => Shape::Unknown,
        deserialize_i32 => Shape::Unknown,
        deserialize_u8 => Shape::Unknown,
        deserialize_u16 => Shape::Unknown,
        deserialize_u32 => Shape::Unknown,
        deserialize_u64 => Shape::Unknown,
        deserialize_f32 => Shape::Unknown,
        deserialize_char => Shape::Unknown,
        deserialize_bytes => Shape::Unknown,
        deserialize_byte_buf => Shape::Unknown,
        deserialize_unit => Shape::Unknown,
        deserialize_identifier => Shape::Unknown,
        deserialize_ignored_any => Shape::Unknown,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        self.0.borrow_mut().push(Step::Option);
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        self.0.borrow_mut().push(Step::Seq);
        visitor.visit_seq(ProbeSeq(self.0))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        self.0.borrow_mut().push(Step::Map);
        visitor.visit_map(ProbeMap {
            cell: self.0,
            key: Some("key"),
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.leaf(Shape::Struct(name))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: V,
    ) -> Result<V::Value, Stop> {
        self.leaf(if name == "JSON" {
            Shape::Json
        } else {
            Shape::Unknown
        })
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Stop> {
        self.leaf(Shape::Unknown)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Stop> {
        self.leaf(Shape::Unknown)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Stop> {
        self.leaf(Shape::Unknown)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.leaf(Shape::Unknown)
    }
}

/// A list of one probed item.
struct ProbeSeq<'a>(&'a RefCell<Vec<Step>>);

impl<'de> SeqAccess<'de> for ProbeSeq<'_> {
    type Error = Stop;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stop> {
        seed.deserialize(Probe(self.0)).map(Some)
    }
}

/// A map (or a struct) of one entry whose value is probed.
struct ProbeMap<'a> {
    cell: &'a RefCell<Vec<Step>>,
    key: Option<&'static str>,
}

impl<'de> MapAccess<'de> for ProbeMap<'_> {
    type Error = Stop;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.key.take() {
            Some(k) => {
                let key: de::value::BorrowedStrDeserializer<'_, Stop> =
                    de::value::BorrowedStrDeserializer::new(k);
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        seed.deserialize(Probe(self.cell))
    }
}

/// Presents a struct of one field, `field`, to a struct's `Deserialize`; with no field,
/// only learns the struct's name and field names.
struct StructProbe<'a> {
    field: Option<&'static str>,
    cell: &'a RefCell<Vec<Step>>,
    found: &'a RefCell<Option<(&'static str, &'static [&'static str])>>,
}

impl<'de> de::Deserializer<'de> for StructProbe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        *self.found.borrow_mut() = Some((name, fields));
        match self.field {
            Some(field) => visitor.visit_map(ProbeMap {
                cell: self.cell,
                key: Some(field),
            }),
            None => Err(Stop),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}

/// The table of `T`, read from its `Deserialize` impl; `None` if it is not a struct.
fn probe<T: for<'de> Deserialize<'de> + serde::Serialize>() -> Option<Table> {
    let cell = RefCell::new(Vec::new());
    let found = RefCell::new(None);
    let _ = T::deserialize(StructProbe {
        field: None,
        cell: &cell,
        found: &found,
    });
    let (name, names) = found.take()?;
    // The fields written even when absent: those of `T` decoded from `{}` and encoded.
    let empty = Value::Object(Map::new());
    let written = match serde_json::to_value(T::deserialize(&empty).ok()?).ok()? {
        Value::Object(m) => m,
        _ => return None,
    };
    let mut fields = Vec::with_capacity(names.len());
    for &field in names {
        cell.borrow_mut().clear();
        // A probe always stops; a type that finishes without asking has a shape we do not
        // know (its steps end without a leaf).
        let _ = T::deserialize(StructProbe {
            field: Some(field),
            cell: &cell,
            found: &found,
        });
        let steps = cell.take();
        let required = written.contains_key(field);
        let mut shape = Shape::Unknown;
        for step in steps.iter().rev() {
            shape = match step {
                Step::Leaf(s) => s.clone(),
                Step::Option => shape,
                Step::Seq => Shape::Seq(Box::new(shape)),
                Step::Map => Shape::Map(Box::new(shape)),
            };
        }
        fields.push(Field {
            name: field,
            shape,
            required,
        });
    }
    let mut by_name: Vec<usize> = (0..fields.len()).collect();
    by_name.sort_by_key(|i| fields[*i].name);
    let required = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    Some(Table {
        fields,
        by_name,
        required,
        omitempty: super::omitempty::fields(name),
    })
}

/// The table of the struct k8s-openapi names `name`, for the structs a schema holds.
fn table(name: &str) -> Option<&'static Table> {
    static SCHEMA: OnceLock<Option<Table>> = OnceLock::new();
    static DOCS: OnceLock<Option<Table>> = OnceLock::new();
    static RULE: OnceLock<Option<Table>> = OnceLock::new();
    match name {
        "JSONSchemaProps" => SCHEMA
            .get_or_init(probe::<apiextensions::JSONSchemaProps>)
            .as_ref(),
        "ExternalDocumentation" => DOCS
            .get_or_init(probe::<apiextensions::ExternalDocumentation>)
            .as_ref(),
        "ValidationRule" => RULE
            .get_or_init(probe::<apiextensions::ValidationRule>)
            .as_ref(),
        _ => None,
    }
}

/// Nesting deeper than this is left to the typed road (which has its own limits).
const MAX_DEPTH: usize = 256;

/// Leave `v` as the typed round trip of a field of `shape` leaves it (before the final
/// [`super::untyped_in_place`]), or `None` when this reading cannot tell; `v` may then be
/// half done, and the caller drops it.
fn value(v: &mut Value, shape: &Shape, fold: bool, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    // Below a union, Go decodes with `encoding/json` (the typed decoder's `fold`).
    let schema = |v: &mut Value| match v {
        Value::Object(m) => object(m, table("JSONSchemaProps")?, true, depth + 1),
        _ => None,
    };
    match (shape, &mut *v) {
        (Shape::Str, Value::String(_)) | (Shape::Bool, Value::Bool(_)) | (Shape::Json, _) => {}
        (Shape::Int, Value::Number(n)) => {
            if n.as_i64().is_none() {
                // An integral float is the integer; anything else does not fit an int64.
                let f = n
                    .as_f64()
                    .filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9.2e18)?;
                *v = Value::from(f as i64);
            }
        }
        (Shape::Float, Value::Number(n)) => {
            if !n.is_f64() {
                *v = Value::from(n.as_f64()?);
            }
        }
        (Shape::Seq(item), Value::Array(items)) => {
            for i in items {
                // A `null` item becomes the item type's zero value: left to the typed road.
                if i.is_null() && **item != Shape::Json {
                    return None;
                }
                value(i, item, fold, depth + 1)?;
            }
        }
        (Shape::Map(item), Value::Object(m)) => {
            for i in m.values_mut() {
                if i.is_null() && **item != Shape::Json {
                    return None;
                }
                value(i, item, fold, depth + 1)?;
            }
        }
        (Shape::Struct(name), Value::Object(m)) => object(m, table(name)?, fold, depth + 1)?,
        (Shape::OrBool, Value::Bool(_)) => {}
        (Shape::OrBool | Shape::OrArray | Shape::OrStringArray, Value::Object(_)) => schema(v)?,
        (Shape::OrArray, Value::Array(items)) => {
            for i in items {
                schema(i)?;
            }
        }
        (Shape::OrStringArray, Value::Array(items)) => {
            if !items.iter().all(Value::is_string) {
                return None;
            }
        }
        _ => return None,
    }
    Some(())
}

/// A struct node: its fields in place, minus unknown, `null` and `omitempty`-zero ones.
fn object(m: &mut Map<String, Value>, table: &Table, fold: bool, depth: usize) -> Option<()> {
    let mut dropped = 0usize;
    for (k, v) in m.iter_mut() {
        // `null` is the zero value, as if absent.
        if v.is_null() {
            dropped += 1;
            continue;
        }
        let Some(field) = table.field(k) else {
            // `encoding/json` would match a case variant: left to the typed road.
            if fold && table.fields.iter().any(|f| f.name.eq_ignore_ascii_case(k)) {
                return None;
            }
            dropped += 1;
            continue;
        };
        if omitted(table.omitempty, field.name, v) {
            // Marked for the `retain` below (a value is never `null` otherwise).
            *v = Value::Null;
            dropped += 1;
            continue;
        }
        value(v, &field.shape, fold, depth)?;
    }
    if dropped > 0 {
        m.retain(|k, v| !v.is_null() && table.field(k).is_some());
    }
    // A required field the object lacks is written with its zero value: left to the typed road.
    if table.required.iter().any(|f| !m.contains_key(*f)) {
        return None;
    }
    Some(())
}

/// The schema tree of a CRD version, `schema.openAPIV3Schema`, where it is an object.
fn schema_of(version: &mut Value) -> Option<&mut Value> {
    version
        .get_mut("schema")?
        .get_mut("openAPIV3Schema")
        .filter(|s| s.is_object())
}

/// The typed round trip of a CRD (`obj`, already known to be one), its schema trees read by
/// this module and the rest by `round_trip` (the typed road). The trees are taken out of
/// `obj` (each replaced by `{}`, which the typed road leaves as `{}`), so nothing is copied.
///
/// Whenever this module cannot tell what the typed road gives for some schema node, or the
/// typed road fails on the rest, the trees go back and the whole object takes the typed
/// road. A tree may then be partly normalised already, which does not change what the typed
/// road makes of it: every change made here (a field dropped as absent, an integral float
/// made an integer, an integer made a float) is one its decoding makes too, and the value it
/// gave up on is untouched, so even its error is the same. Returns whether the schema road
/// answered (for tests and measurements).
pub(super) fn crd(
    mut obj: Value,
    round_trip: impl Fn(&Value) -> Result<Value, super::FieldError>,
) -> (Result<Value, super::FieldError>, bool) {
    // The tables are k8s-openapi's fields, the newest minor's: should a schema struct gain
    // a field some release's Go types lack, only the typed road knows to drop it.
    let release_independent = ["JSONSchemaProps", "ExternalDocumentation", "ValidationRule"]
        .iter()
        .all(|s| super::fields_by_release::varying(s).is_empty());
    let Some(schema_table) = table("JSONSchemaProps").filter(|_| release_independent) else {
        return (round_trip(&obj), false);
    };
    let mut trees = Vec::new();
    if let Some(versions) = obj
        .get_mut("spec")
        .and_then(|s| s.get_mut("versions"))
        .and_then(Value::as_array_mut)
    {
        for (i, version) in versions.iter_mut().enumerate() {
            if let Some(tree) = schema_of(version) {
                trees.push((i, std::mem::replace(tree, Value::Object(Map::new()))));
            }
        }
    }
    if trees.is_empty() {
        return (round_trip(&obj), false);
    }
    let answered = round_trip(&obj).ok().and_then(|mut out| {
        let versions = out.get_mut("spec")?.get_mut("versions")?.as_array_mut()?;
        for (i, tree) in &mut trees {
            let slot = schema_of(versions.get_mut(*i)?)?;
            if !slot.as_object().is_some_and(Map::is_empty) {
                return None;
            }
            let Value::Object(m) = tree else {
                return None;
            };
            object(m, schema_table, false, 0)?;
            *slot = std::mem::take(tree);
        }
        Some(out)
    });
    if let Some(out) = answered {
        return (Ok(out), true);
    }
    // The typed road for the whole object, with its trees back in place.
    if let Some(versions) = obj
        .get_mut("spec")
        .and_then(|s| s.get_mut("versions"))
        .and_then(Value::as_array_mut)
    {
        for (i, tree) in trees {
            if let Some(slot) = versions.get_mut(i).and_then(schema_of) {
                *slot = tree;
            }
        }
    }
    (round_trip(&obj), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Crd = apiextensions::CustomResourceDefinition;

    /// [`crd`] and the typed road alone, as text (key order included) or error; `None`
    /// for the first when the schema road gave up. Whatever road it took, [`crd`] must give
    /// what the typed road gives, errors included.
    fn both(obj: &Value) -> (Option<String>, Result<String, String>) {
        let typed = |o: &Value| super::super::round_trip::<Crd>(o, 36);
        let text = |r: Result<Value, super::super::FieldError>| {
            r.map(|v| serde_json::to_string(&v).unwrap())
                .map_err(|e| e.to_string())
        };
        let (out, answered) = crd(obj.clone(), typed);
        let (out, slow) = (text(out), text(typed(obj)));
        assert_eq!(out, slow, "crd() and the typed road differ on {obj}");
        (answered.then(|| out.unwrap()), slow)
    }

    fn crd_with(schema: Value) -> Value {
        serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.com", "creationTimestamp": null},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Thing", "plural": "things"},
                "scope": "Namespaced",
                "versions": [
                    {"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": schema}},
                    {"name": "v2", "served": true, "storage": false}
                ]
            }
        })
    }

    #[test]
    fn the_schema_road_gives_what_the_typed_road_gives() {
        let schema = serde_json::json!({
            "type": "object",
            "description": "",
            "unknownField": {"x": 1},
            "nullable": false,
            "maxItems": 3.0,
            "maximum": 10,
            "minimum": 1.5,
            "default": {"a": null, "b": 2.0},
            "enum": [null, 1, "x"],
            "required": [],
            "x-kubernetes-validations": [{"rule": "self > 0", "message": "", "extra": 1}],
            "externalDocs": {"url": "https://example.com", "description": ""},
            "properties": {
                "spec": {
                    "type": "object",
                    "additionalProperties": true,
                    "items": [{"type": "string", "pattern": "x"}],
                    "properties": {"n": {"type": "integer", "format": "int32", "title": null}}
                },
                "list": {"type": "array", "items": {"type": "string", "description": ""}},
                "deps": {"dependencies": {"a": ["b"], "c": {"type": "string"}}},
                "ap": {"additionalProperties": {"type": "string"}}
            }
        });
        let obj = crd_with(schema);
        let (fast, slow) = both(&obj);
        assert_eq!(fast.as_ref(), slow.as_ref().ok());
        let text = fast.unwrap();
        for gone in [
            "unknownField",
            "\"description\":\"\"",
            "nullable",
            "\"required\"",
        ] {
            assert!(!text.contains(gone), "{gone} in {text}");
        }
        assert!(text.contains("\"maxItems\":3,"), "{text}");
    }

    #[test]
    fn the_schema_road_gives_up_where_the_typed_road_must_decide() {
        for schema in [
            serde_json::json!({"type": 1}),
            serde_json::json!({"maxItems": 1.5}),
            serde_json::json!({"maxItems": "3"}),
            serde_json::json!({"items": {"Type": "string"}}),
            serde_json::json!({"properties": {"a": null}}),
            serde_json::json!({"required": [null]}),
            serde_json::json!({"x-kubernetes-validations": [{"message": "no rule"}]}),
            serde_json::json!({"additionalProperties": "yes"}),
            // Given up after normalising part of the tree: the typed road's error is the same.
            serde_json::json!({"description": "", "maxItems": 2.0, "minimum": 1,
                               "properties": {"a": {"nullable": false, "type": 1}}}),
            serde_json::json!({"unknown": 1, "items": [{"x": 1}, {"Type": "string"}]}),
        ] {
            let obj = crd_with(schema.clone());
            let (fast, _) = both(&obj);
            assert_eq!(fast, None, "{schema}");
        }
    }

    /// A schema node of random fields, known and not, of right and wrong types.
    fn node() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(Value::from),
            prop_oneof![Just(0.0f64), Just(1.0), Just(2.5), Just(-0.0), Just(1e300)]
                .prop_map(Value::from),
            prop_oneof![Just(""), Just("string"), Just("x")].prop_map(Value::from),
            Just(Value::Array(vec![])),
            Just(Value::Object(Map::new())),
        ];
        let keys = prop_oneof![
            Just("type"),
            Just("description"),
            Just("properties"),
            Just("items"),
            Just("additionalProperties"),
            Just("required"),
            Just("enum"),
            Just("default"),
            Just("maxItems"),
            Just("maximum"),
            Just("nullable"),
            Just("allOf"),
            Just("not"),
            Just("dependencies"),
            Just("x-kubernetes-validations"),
            Just("externalDocs"),
            Just("rule"),
            Just("message"),
            Just("url"),
            Just("Type"),
            Just("ITEMS"),
            Just("unknown"),
            Just("format"),
            Just("x-kubernetes-preserve-unknown-fields"),
        ];
        leaf.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|kv| {
                    Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whenever the schema road answers, the typed road gives the same text.
        #[test]
        fn the_schema_road_agrees_with_the_typed_road(schema in node()) {
            let obj = crd_with(schema);
            let (fast, slow) = both(&obj);
            if let Some(fast) = fast {
                prop_assert_eq!(Some(&fast), slow.as_ref().ok());
            }
        }
    }

    /// Every CRD under `../shared/realdata`: the two roads agree, and the schema road takes
    /// (nearly) all of them.
    #[test]
    fn realdata_crds_agree() {
        let Some(root) = crate::catalog::tests::realdata("realdata_crds_agree") else {
            return;
        };
        let (mut crds, mut fast_road) = (0, 0);
        for entry in walkdir::WalkDir::new(&root).into_iter().flatten() {
            let path = entry.path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "yaml" | "yml" | "json")
                || entry.metadata().map_or(0, |m| m.len()) > 8 << 20
            {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            if !text.contains("CustomResourceDefinition") {
                continue;
            }
            let Ok(objects) = crate::bundle::yaml11::from_multiple(&text) else {
                continue;
            };
            for obj in objects {
                if obj.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition")
                    || obj.get("apiVersion").and_then(Value::as_str)
                        != Some("apiextensions.k8s.io/v1")
                {
                    continue;
                }
                crds += 1;
                let (fast, slow) = both(&obj);
                if let Some(fast) = fast {
                    fast_road += 1;
                    assert_eq!(Some(&fast), slow.as_ref().ok(), "{}", path.display());
                }
            }
        }
        eprintln!(
            "{fast_road} of {crds} CRDs under {} took the schema road",
            root.display()
        );
        assert!(crds > 0);
        assert!(fast_road * 10 >= crds * 9, "{fast_road} of {crds}");
    }

    #[test]
    fn the_probe_reads_json_schema_props_from_k8s_openapi() {
        let t = table("JSONSchemaProps").expect("a struct");
        assert_eq!(t.fields.len(), 44, "{t:?}");
        let shape = |n: &str| t.field(n).map(|f| (f.shape.clone(), f.required));
        assert_eq!(shape("description"), Some((Shape::Str, false)));
        assert_eq!(shape("maxItems"), Some((Shape::Int, false)));
        assert_eq!(shape("maximum"), Some((Shape::Float, false)));
        assert_eq!(shape("nullable"), Some((Shape::Bool, false)));
        assert_eq!(shape("default"), Some((Shape::Json, false)));
        assert_eq!(
            shape("enum"),
            Some((Shape::Seq(Box::new(Shape::Json)), false))
        );
        assert_eq!(
            shape("properties"),
            Some((
                Shape::Map(Box::new(Shape::Struct("JSONSchemaProps"))),
                false
            ))
        );
        assert_eq!(
            shape("not"),
            Some((Shape::Struct("JSONSchemaProps"), false))
        );
        assert_eq!(shape("items"), Some((Shape::OrArray, false)));
        assert_eq!(shape("additionalProperties"), Some((Shape::OrBool, false)));
        assert_eq!(
            shape("dependencies"),
            Some((Shape::Map(Box::new(Shape::OrStringArray)), false))
        );
        assert_eq!(
            shape("x-kubernetes-validations"),
            Some((Shape::Seq(Box::new(Shape::Struct("ValidationRule"))), false))
        );
        assert!(t.fields.iter().all(|f| f.shape != Shape::Unknown), "{t:?}");
        let rule = table("ValidationRule").expect("a struct");
        assert_eq!(
            rule.field("rule").map(|f| (f.shape.clone(), f.required)),
            Some((Shape::Str, true))
        );
        assert!(table("ExternalDocumentation").is_some());
        assert!(table("Nope").is_none());
    }
}
