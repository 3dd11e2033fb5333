//! A serde `Deserializer` over a decoded object that fits values to typed fields the way
//! apimachinery's `runtime.DefaultUnstructuredConverter.FromUnstructured` does
//! (`pkg/runtime/converter.go`: `fromUnstructured`, `structFromUnstructured`), so that
//! deserialising into a `k8s-openapi` struct gives what Go's typed struct holds:
//!
//! - struct fields are matched by their exact JSON name (`sv.MapIndex(fieldInfo.nameValue)`),
//!   unknown ones are dropped, and a `null` field is the zero value, as if absent;
//! - numbers go into int fields only when integral (`sv.Float() == math.Trunc(sv.Float())`),
//!   never from strings or booleans; strings only from strings; booleans only from booleans
//!   (`cannot convert string to bool`);
//! - a `resource.Quantity` goes through its `UnmarshalJSON` (a JSON string or number) and
//!   comes out as `MarshalJSON` writes it ([`super::quantity::canonical`]).
//!
//! Where Go would silently truncate an out-of-range integer (`reflect.Value.Convert` from
//! int64 to int32), we refuse instead: no real manifest relies on the wrap-around.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::quantity;
use super::zero::{Zero, omitted};

/// A value that does not fit its typed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Dotted path of the field, `[i]` for list items.
    pub path: Option<String>,
    /// What is wrong, in Go's words where Go has some.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "field {p}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for FieldError {}

impl de::Error for FieldError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        FieldError {
            path: None,
            message: msg.to_string(),
        }
    }
}

/// One step of the path from the object's root, kept on the stack.
#[derive(Clone, Copy)]
pub(crate) enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, k) => {
                let p = parent.render();
                if p.is_empty() {
                    (*k).to_owned()
                } else {
                    format!("{p}.{k}")
                }
            }
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }
}

/// The deserializer: a value and where it sits.
pub(crate) struct GoValue<'de, 'p> {
    pub(crate) value: &'de Value,
    pub(crate) path: Path<'p>,
    /// Inside a value Go decodes with `encoding/json` rather than the converter: the
    /// `UnmarshalJSON` of apiextensions' `JSONSchemaPropsOrArray`, `JSONSchemaPropsOrBool` and
    /// `JSONSchemaPropsOrStringArray` (`items`, `additionalProperties`, `dependencies`)
    /// calls `json.Unmarshal`, which matches a field name case-insensitively when no field
    /// has it exactly.
    pub(crate) fold: bool,
    /// The Kubernetes minor whose Go types are decoded into: a struct field it lacks
    /// ([`super::fields_by_release`]) is skipped, as `fromUnstructured` skips unknown fields.
    pub(crate) kube_minor: u64,
}

/// Go's name for a JSON value's type in `cannot convert X to Y`.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nil",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

impl<'de> GoValue<'de, '_> {
    fn cannot(&self, to: &str) -> FieldError {
        FieldError {
            path: Some(self.path.render()),
            message: format!("cannot convert {} to {to}", go_type(self.value)),
        }
    }

    fn with_path(&self, mut e: FieldError) -> FieldError {
        if e.path.is_none() {
            e.path = Some(self.path.render());
        }
        e
    }

    fn integer<V: Visitor<'de>>(self, visitor: V, to: &str) -> Result<V::Value, FieldError> {
        let r = match self.value {
            // `fromUnstructured`: an invalid (nil) source sets the zero value.
            Value::Null => visitor.visit_i64(0),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if f.fract() == 0.0 && f.abs() < 9.2e18 {
                        visitor.visit_i64(f as i64)
                    } else {
                        return Err(self.cannot(to));
                    }
                }
            }
            _ => return Err(self.cannot(to)),
        };
        r.map_err(|e| self.with_path(e))
    }
}

struct Seq<'de, 'p> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
    parent: Path<'p>,
    fold: bool,
    kube_minor: u64,
}

impl<'de> SeqAccess<'de> for Seq<'de, '_> {
    type Error = FieldError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, FieldError> {
        let Some(v) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(&self.parent, self.index);
        self.index += 1;
        seed.deserialize(GoValue {
            value: v,
            path,
            fold: self.fold,
            kube_minor: self.kube_minor,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Map<'de, 'p> {
    entries: serde_json::map::Iter<'de>,
    current: Option<(&'de String, &'de Value)>,
    parent: Path<'p>,
    /// Struct context: `null` fields are skipped (Go: zero value, as if absent).
    skip_nulls: bool,
    /// Struct fields to match case-insensitively (`encoding/json`), when folding.
    fields: Option<&'static [&'static str]>,
    fold: bool,
    /// Struct fields that Go's encoder drops when they hold their zero value
    /// ([`super::omitempty`]): such a field is skipped here, so the typed struct leaves it
    /// unset and it is not written.
    omitempty: &'static [(&'static str, Zero)],
    kube_minor: u64,
    /// Struct fields not every Kubernetes minor has, with the minors that have them.
    varying: &'static [(&'static str, u64, u64)],
}

impl<'de> MapAccess<'de> for Map<'de, '_> {
    type Error = FieldError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, FieldError> {
        loop {
            let Some((k, v)) = self.entries.next() else {
                return Ok(None);
            };
            if self.skip_nulls && v.is_null() {
                continue;
            }
            self.current = Some((k, v));
            let name = match self.fields {
                Some(fields) if !fields.contains(&k.as_str()) => fields
                    .iter()
                    .find(|f| f.eq_ignore_ascii_case(k))
                    .copied()
                    .unwrap_or(k.as_str()),
                _ => k.as_str(),
            };
            if omitted(self.omitempty, name, v) || self.lacks(name) {
                continue;
            }
            let key: de::value::StrDeserializer<'_, FieldError> = name.into_deserializer();
            return seed.deserialize(key).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, FieldError> {
        let (k, v) = self
            .current
            .take()
            .ok_or_else(|| <FieldError as de::Error>::custom("value without a key"))?;
        let path = Path::Key(&self.parent, k);
        seed.deserialize(GoValue {
            value: v,
            path,
            fold: self.fold,
            kube_minor: self.kube_minor,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

impl Map<'_, '_> {
    /// Whether the struct's Go type of [`Self::kube_minor`] lacks field `name`.
    fn lacks(&self, name: &str) -> bool {
        self.varying
            .iter()
            .any(|(f, first, last)| *f == name && !(*first..=*last).contains(&self.kube_minor))
    }
}

impl<'de, 'p> GoValue<'de, 'p> {
    fn map<V: Visitor<'de>>(
        self,
        visitor: V,
        skip_nulls: bool,
        fields: Option<&'static [&'static str]>,
        omitempty: &'static [(&'static str, Zero)],
        varying: &'static [(&'static str, u64, u64)],
    ) -> Result<V::Value, FieldError> {
        static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> =
            std::sync::OnceLock::new();
        let m = match self.value {
            Value::Object(m) => m,
            Value::Null => EMPTY.get_or_init(serde_json::Map::new),
            _ => {
                return Err(FieldError {
                    path: Some(self.path.render()),
                    message: format!("cannot restore struct from: {}", go_kind(self.value)),
                });
            }
        };
        let path = self.path;
        let r = visitor.visit_map(Map {
            entries: m.iter(),
            current: None,
            parent: path,
            skip_nulls,
            fields: fields.filter(|_| self.fold),
            fold: self.fold,
            omitempty,
            kube_minor: self.kube_minor,
            varying,
        });
        r.map_err(|e| {
            if e.path.is_none() {
                FieldError {
                    path: Some(path.render()),
                    ..e
                }
            } else {
                e
            }
        })
    }
}

/// The JSON field names of apiextensions/v1 `JSONSchemaProps`, as k8s-openapi declares them:
/// read once from its `Deserialize` impl, which names them in `deserialize_struct`.
fn json_schema_props_fields() -> &'static [&'static str] {
    static FIELDS: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        struct Probe;
        #[derive(Debug)]
        struct Found(&'static [&'static str]);
        impl fmt::Display for Found {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("probe")
            }
        }
        impl std::error::Error for Found {}
        impl de::Error for Found {
            fn custom<T: fmt::Display>(_: T) -> Self {
                Found(&[])
            }
        }
        impl<'de> de::Deserializer<'de> for Probe {
            type Error = Found;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
                Err(Found(&[]))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Found> {
                Err(Found(fields))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
                identifier ignored_any
            }
        }
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
        match <JSONSchemaProps as serde::Deserialize>::deserialize(Probe) {
            Err(Found(fields)) => fields,
            Ok(_) => &[],
        }
    })
}

/// Go's `reflect.Kind` name of an unstructured value.
fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

macro_rules! integers {
    ($($method:ident => $go:literal),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
            self.integer(visitor, $go)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for GoValue<'de, '_> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, FieldError> {
        // k8s-openapi's visitors for the `JSONSchemaPropsOr…` unions: Go decodes what is
        // below them with `encoding/json`.
        let union = std::any::type_name::<V>().contains("JSONSchemaPropsOr");
        if union {
            self.fold = true;
        }
        let r = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                return visitor
                    .visit_seq(Seq {
                        items: items.iter(),
                        index: 0,
                        parent: self.path,
                        fold: self.fold,
                        kube_minor: self.kube_minor,
                    })
                    .map_err(|e| self.with_path(e));
            }
            // The union's object form is a `JSONSchemaProps`, decoded as a struct.
            Value::Object(_) if union => {
                return self.map(
                    visitor,
                    true,
                    Some(json_schema_props_fields()),
                    super::omitempty::fields("JSONSchemaProps"),
                    super::fields_by_release::varying("JSONSchemaProps"),
                );
            }
            Value::Object(_) => return self.map(visitor, false, None, &[], &[]),
        };
        r.map_err(|e| self.with_path(e))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b).map_err(|e| self.with_path(e)),
            Value::Null => visitor.visit_bool(false).map_err(|e| self.with_path(e)),
            _ => Err(self.cannot("bool")),
        }
    }

    integers!(
        deserialize_i8 => "int8", deserialize_i16 => "int16", deserialize_i32 => "int32",
        deserialize_i64 => "int64", deserialize_u8 => "uint8", deserialize_u16 => "uint16",
        deserialize_u32 => "uint32", deserialize_u64 => "uint64"
    );

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value {
            Value::Number(n) => visitor
                .visit_f64(n.as_f64().unwrap_or(f64::NAN))
                .map_err(|e| self.with_path(e)),
            Value::Null => visitor.visit_f64(0.0).map_err(|e| self.with_path(e)),
            _ => Err(self.cannot("float64")),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s).map_err(|e| self.with_path(e)),
            Value::Null => visitor
                .visit_borrowed_str("")
                .map_err(|e| self.with_path(e)),
            _ => Err(self.cannot("string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        if name == "Quantity" {
            // `Quantity.UnmarshalJSON` gets the JSON text of the unstructured value.
            let text = match self.value {
                // `fromUnstructured`: nil sets the zero Quantity, which marshals as "0".
                Value::Null => "0".to_owned(),
                Value::String(s) => s.clone(),
                Value::Number(n) => match n.as_f64() {
                    Some(f) if n.is_f64() => quantity::go_float_text(f),
                    _ => n.to_string(),
                },
                other => {
                    return Err(FieldError {
                        path: Some(self.path.render()),
                        message: format!(
                            "quantities must be a string or a number, found {}",
                            go_type(other)
                        ),
                    });
                }
            };
            let canonical = quantity::canonical(&text).map_err(|e| FieldError {
                path: Some(self.path.render()),
                message: e.to_string(),
            })?;
            let d: de::value::StringDeserializer<FieldError> = canonical.into_deserializer();
            return visitor
                .visit_newtype_struct(d)
                .map_err(|e| self.with_path(e));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.value {
            Value::Array(items) => visitor
                .visit_seq(Seq {
                    items: items.iter(),
                    index: 0,
                    parent: self.path,
                    fold: self.fold,
                    kube_minor: self.kube_minor,
                })
                .map_err(|e| self.with_path(e)),
            Value::Null => visitor.visit_seq(Seq {
                items: [].iter(),
                index: 0,
                parent: self.path,
                fold: self.fold,
                kube_minor: self.kube_minor,
            }),
            _ => Err(FieldError {
                path: Some(self.path.render()),
                message: format!("cannot restore slice from {}", go_kind(self.value)),
            }),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.map(visitor, false, None, &[], &[])
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.map(
            visitor,
            true,
            Some(fields),
            super::omitempty::fields(name),
            super::fields_by_release::varying(name),
        )
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.value
            .deserialize_enum(name, variants, visitor)
            .map_err(|e| FieldError {
                path: Some(self.path.render()),
                message: e.to_string(),
            })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_unit()
    }
}
