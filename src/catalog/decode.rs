//! How catalog text is decoded, as the Go libraries operator-registry uses decode it:
//!
//! * JSON into typed structs with Go `encoding/json`'s rules (keys match case-insensitively,
//!   unknown keys are ignored, the last duplicate wins, `null` leaves the zero value), as the
//!   `fbc_struct!` macro writes them for every struct named as in the file, plus the rules the
//!   routing keys (`schema`, `package`, `name`) of a document obey;
//! * YAML with the options that match `sigs.k8s.io/yaml` ([`yaml_options`]).
//!
//! The model ([`super::model`]), the properties ([`super::property`]), the file format
//! ([`super::fbc`]) and the fast YAML reader ([`super::fastyaml`]) all read this; it imports
//! nothing of the crate.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// A borrowed-when-possible map key.
pub(super) struct Key<'a>(pub(super) Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The spellings of `schema`, `package` and `name` seen in one object: two spellings of one
/// key are an error, as in the loader's routing pass (`extractUniqueMetaKeys`), so typed decoding can stand
/// in for the routing pass.
#[derive(Default)]
pub(super) struct RoutingKeys(Option<String>, Option<String>, Option<String>);

impl RoutingKeys {
    pub(super) fn is_routing_key(key: &str) -> bool {
        ["schema", "package", "name"]
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k))
    }

    pub(super) fn check(&mut self, key: &str) -> Result<(), String> {
        let slot = if key.eq_ignore_ascii_case("schema") {
            &mut self.0
        } else if key.eq_ignore_ascii_case("package") {
            &mut self.1
        } else if key.eq_ignore_ascii_case("name") {
            &mut self.2
        } else {
            return Ok(());
        };
        match slot {
            Some(prev) if prev != key => Err(format!(
                "duplicate keys {prev:?} and {key:?} differ only by case"
            )),
            Some(_) => Ok(()),
            None => {
                *slot = Some(key.to_owned());
                Ok(())
            }
        }
    }
}

/// Declares a struct named as in the file with a case-insensitive, null-tolerant `Deserialize`
/// (Go `encoding/json` semantics: keys fold case, unknown keys are ignored, the last duplicate
/// wins, `null` leaves the zero value) and a plain `Serialize` with the file's names.
/// `document;` marks a document's top-level struct, which also applies the routing pass's
/// rules to `schema`, `package` and `name` (see [`RoutingKeys`]). Where it is used, [`Key`],
/// [`RoutingKeys`], `std::fmt` and serde's `Deserialize`, `Deserializer`, `Serialize`, `de`,
/// `IgnoredAny`, `MapAccess` and `Visitor` must be in scope.
macro_rules! fbc_struct {
    (
        document;
        $($rest:tt)*
    ) => {
        fbc_struct!(@top true; $($rest)*);
    };
    (
        @top $top:literal;
        $(#[$m:meta])*
        pub struct $name:ident {
            $( $(#[$fm:meta])* $json:literal => pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize)]
        pub struct $name {
            $( $(#[$fm])* #[serde(rename = $json)] pub $field: $ty, )*
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct StructVisitor;
                impl<'de> Visitor<'de> for StructVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut out = $name::default();
                        let mut routing_keys = RoutingKeys::default();
                        while let Some(key) = map.next_key::<Key<'de>>()? {
                            if $top {
                                routing_keys.check(&key.0).map_err(de::Error::custom)?;
                            }
                            $(
                                if key.0.eq_ignore_ascii_case($json) {
                                    if let Some(v) = map.next_value::<Option<$ty>>()? {
                                        out.$field = v;
                                    }
                                    continue;
                                }
                            )*
                            if $top && RoutingKeys::is_routing_key(&key.0) {
                                // Not a field here, but the routing pass reads it as a string.
                                map.next_value::<Option<String>>()?;
                            } else {
                                map.next_value::<IgnoredAny>()?;
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(StructVisitor)
            }
        }
    };
    (
        $(#[$m:meta])*
        pub struct $($rest:tt)*
    ) => {
        fbc_struct!(@top false; $(#[$m])* pub struct $($rest)*);
    };
}

pub(super) use fbc_struct;

/// YAML options matching Go's `sigs.k8s.io/yaml` (yaml.v2): a repeated key keeps the last
/// value instead of failing (oc-mirror's `exp-headsonly` test catalog has one). Comments are
/// still checked but not captured (nothing reads them; about 3 % of the parse, measured
/// with the benchmark's `yamlopts` phase). The default budget (alias expansion, nesting,
/// event counts) stays on: catalogs are untrusted input.
pub fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        emit_comments: false,
    }
}
