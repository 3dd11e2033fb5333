//! Encoding a typed struct back over the value it was decoded from.
//!
//! [`InPlace`] is a [`serde::Serializer`] that writes into an existing [`Value`] (a copy of
//! the object the struct was decoded from) instead of building a new one: a field the
//! object already has is overwritten where it stands (an equal string is left alone), a new
//! field is appended, a field the struct did not keep is removed. The result is what
//! `serde_json::to_value` followed by [`super::order_like`] gives, without building every
//! map a second time and hashing each key three times.
//!
//! Whatever it does not do exactly like that pair (a map key the object did not have, a
//! map that loses keys, tuples, enum variants with data, any error) stops it with [`Bail`];
//! the caller then takes the slow road, which also reports any error in its own words.

use serde::Serialize;
use serde::ser::{self, Impossible};
use serde_json::{Map, Value};

/// The fast road does not apply; take `to_value` and `order_like`.
#[derive(Debug)]
pub struct Bail;

impl std::fmt::Display for Bail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not encoded in place")
    }
}

impl std::error::Error for Bail {}

impl ser::Error for Bail {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        Bail
    }
}

use serde_json::value::Serializer as Json;
type JsonSeq = <Json as ser::Serializer>::SerializeSeq;
type JsonMap = <Json as ser::Serializer>::SerializeMap;
type JsonStruct = <Json as ser::Serializer>::SerializeStruct;

fn fresh<T: ?Sized + Serialize>(value: &T) -> Result<Value, Bail> {
    value.serialize(Json).map_err(|_| Bail)
}

/// Serializes into the value it holds; see the module documentation.
pub struct InPlace<'a>(pub &'a mut Value);

macro_rules! scalar {
    ($($method:ident($ty:ty);)*) => {
        $(fn $method(self, v: $ty) -> Result<(), Bail> {
            *self.0 = ser::Serializer::$method(Json, v).map_err(|_| Bail)?;
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for InPlace<'a> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = MapInPlace<'a>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Impossible<(), Bail>;

    scalar! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
    }

    fn serialize_str(self, v: &str) -> Result<(), Bail> {
        match self.0 {
            Value::String(s) if s == v => {}
            slot => *slot = Value::String(v.to_owned()),
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Bail> {
        *self.0 = Value::Null;
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Bail> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Bail> {
        *self.0 = Value::Null;
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Bail> {
        *self.0 = Value::Null;
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Bail> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Bail> {
        Err(Bail)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'a>, Bail> {
        match self.0 {
            Value::Array(items) => Ok(Seq::InPlace { items, next: 0 }),
            slot => Ok(Seq::Fresh {
                slot,
                seq: ser::Serializer::serialize_seq(Json, len).map_err(|_| Bail)?,
            }),
        }
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Bail> {
        Err(Bail)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Bail> {
        Err(Bail)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Bail> {
        Err(Bail)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<MapInPlace<'a>, Bail> {
        match self.0 {
            // Every key must be one the object has, and all of them (else bail), so the
            // map keeps its order and loses nothing.
            Value::Object(map) => {
                if len != Some(map.len()) {
                    return Err(Bail);
                }
                Ok(MapInPlace::InPlace {
                    map,
                    seen: 0,
                    next: None,
                })
            }
            slot => Ok(MapInPlace::Fresh {
                slot,
                map: ser::Serializer::serialize_map(Json, len).map_err(|_| Bail)?,
            }),
        }
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Struct<'a>, Bail> {
        match self.0 {
            Value::Object(map) => Ok(Struct::InPlace {
                map,
                fields: Vec::new(),
                hits: 0,
                misses: 0,
            }),
            slot => Ok(Struct::Fresh {
                slot,
                map: ser::Serializer::serialize_struct(Json, name, len).map_err(|_| Bail)?,
            }),
        }
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Bail> {
        Err(Bail)
    }
}

/// A list: item `i` is encoded over the object's item `i`, further items are new, and the
/// list ends where the struct's does.
pub enum Seq<'a> {
    InPlace {
        items: &'a mut Vec<Value>,
        next: usize,
    },
    Fresh {
        slot: &'a mut Value,
        seq: JsonSeq,
    },
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Bail> {
        match self {
            Seq::InPlace { items, next } => {
                match items.get_mut(*next) {
                    Some(slot) => value.serialize(InPlace(slot))?,
                    None => items.push(fresh(value)?),
                }
                *next += 1;
                Ok(())
            }
            Seq::Fresh { seq, .. } => seq.serialize_element(value).map_err(|_| Bail),
        }
    }

    fn end(self) -> Result<(), Bail> {
        match self {
            Seq::InPlace { items, next } => {
                items.truncate(next);
                Ok(())
            }
            Seq::Fresh { slot, seq } => {
                *slot = seq.end().map_err(|_| Bail)?;
                Ok(())
            }
        }
    }
}

/// A map (`BTreeMap<String, _>`) whose keys are exactly the object's.
pub enum MapInPlace<'a> {
    InPlace {
        map: &'a mut Map<String, Value>,
        seen: usize,
        next: Option<String>,
    },
    Fresh {
        slot: &'a mut Value,
        map: JsonMap,
    },
}

impl ser::SerializeMap for MapInPlace<'_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Bail> {
        match self {
            MapInPlace::InPlace { next, .. } => {
                *next = Some(key.serialize(KeyString)?);
                Ok(())
            }
            MapInPlace::Fresh { map, .. } => map.serialize_key(key).map_err(|_| Bail),
        }
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Bail> {
        match self {
            MapInPlace::InPlace { map, seen, next } => {
                let key = next.take().ok_or(Bail)?;
                let slot = map.get_mut(&key).ok_or(Bail)?;
                value.serialize(InPlace(slot))?;
                *seen += 1;
                Ok(())
            }
            MapInPlace::Fresh { map, .. } => map.serialize_value(value).map_err(|_| Bail),
        }
    }

    fn serialize_entry<K: ?Sized + Serialize, V: ?Sized + Serialize>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), Bail> {
        match self {
            MapInPlace::InPlace { map, seen, .. } => {
                let slot = key.serialize(KeyLookup(map))?;
                value.serialize(InPlace(slot))?;
                *seen += 1;
                Ok(())
            }
            MapInPlace::Fresh { map, .. } => map.serialize_entry(key, value).map_err(|_| Bail),
        }
    }

    fn end(self) -> Result<(), Bail> {
        match self {
            // Distinct keys, each one the object has, as many as it has: all of them.
            MapInPlace::InPlace { map, seen, .. } if seen == map.len() => Ok(()),
            MapInPlace::InPlace { .. } => Err(Bail),
            MapInPlace::Fresh { slot, map } => {
                *slot = map.end().map_err(|_| Bail)?;
                Ok(())
            }
        }
    }
}

/// A struct: its fields overwrite the object's, new ones are appended, and the object's
/// fields it does not have are removed.
pub enum Struct<'a> {
    InPlace {
        map: &'a mut Map<String, Value>,
        /// The fields written, in order.
        fields: Vec<&'static str>,
        hits: usize,
        misses: usize,
    },
    Fresh {
        slot: &'a mut Value,
        map: JsonStruct,
    },
}

impl ser::SerializeStruct for Struct<'_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Bail> {
        match self {
            Struct::InPlace {
                map,
                fields,
                hits,
                misses,
            } => {
                match map.get_mut(key) {
                    Some(slot) => {
                        value.serialize(InPlace(slot))?;
                        *hits += 1;
                    }
                    None => {
                        map.insert(key.to_owned(), fresh(value)?);
                        *misses += 1;
                    }
                }
                fields.push(key);
                Ok(())
            }
            Struct::Fresh { map, .. } => map.serialize_field(key, value).map_err(|_| Bail),
        }
    }

    fn end(self) -> Result<(), Bail> {
        match self {
            Struct::InPlace {
                map,
                fields,
                hits,
                misses,
            } => {
                if hits + misses != map.len() {
                    // Fields the struct does not have (unknown, or matched case-insensitively).
                    map.retain(|k, _| fields.contains(&k.as_str()));
                }
                if misses > 0 {
                    reorder_new_fields(map, &fields, misses);
                }
                Ok(())
            }
            Struct::Fresh { slot, map } => {
                *slot = map.end().map_err(|_| Bail)?;
                Ok(())
            }
        }
    }
}

/// Put the `misses` new fields (at the end of `map`, in the order written) in the order
/// [`super::order_like`] leaves them: it takes the object's fields out of the encoded map
/// with `swap_remove`, in the object's order, and appends what is left as it then stands.
fn reorder_new_fields(map: &mut Map<String, Value>, fields: &[&'static str], misses: usize) {
    let old = map.len() - misses;
    let mut left: Vec<&'static str> = fields.to_vec();
    for k in map.keys().take(old) {
        if let Some(p) = left.iter().position(|f| *f == k) {
            left.swap_remove(p);
        }
    }
    let tail: Vec<&str> = map.keys().skip(old).map(String::as_str).collect();
    if tail == left {
        return;
    }
    let mut taken: Vec<(String, Value)> = Vec::with_capacity(misses);
    for k in &left {
        if let Some(entry) = map.shift_remove_entry(*k) {
            taken.push(entry);
        }
    }
    map.extend(taken);
}

/// A map key as a string (every key of the kinds typed here is one).
struct KeyString;

/// A map key looked up in the object: its value, or [`Bail`] when it has none.
struct KeyLookup<'a>(&'a mut Map<String, Value>);

macro_rules! no_key {
    ($($method:ident($($ty:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $ty),*) -> Result<$ret, Bail> {
            Err(Bail)
        })*
    };
}

macro_rules! key_serializer {
    (impl$(<$lt:lifetime>)? for $name:ty => $ok:ty) => {
        impl$(<$lt>)? ser::Serializer for $name {
            type Ok = $ok;
            type Error = Bail;
            type SerializeSeq = Impossible<$ok, Bail>;
            type SerializeTuple = Impossible<$ok, Bail>;
            type SerializeTupleStruct = Impossible<$ok, Bail>;
            type SerializeTupleVariant = Impossible<$ok, Bail>;
            type SerializeMap = Impossible<$ok, Bail>;
            type SerializeStruct = Impossible<$ok, Bail>;
            type SerializeStructVariant = Impossible<$ok, Bail>;

            fn serialize_str(self, v: &str) -> Result<$ok, Bail> {
                self.key(v)
            }

            fn serialize_newtype_struct<T: ?Sized + Serialize>(
                self,
                _name: &'static str,
                value: &T,
            ) -> Result<$ok, Bail> {
                value.serialize(self)
            }

            fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<$ok, Bail> {
                Err(Bail)
            }

            fn serialize_newtype_variant<T: ?Sized + Serialize>(
                self,
                _: &'static str,
                _: u32,
                _: &'static str,
                _: &T,
            ) -> Result<$ok, Bail> {
                Err(Bail)
            }

            no_key! {
                serialize_bool(bool) -> $ok;
                serialize_i8(i8) -> $ok;
                serialize_i16(i16) -> $ok;
                serialize_i32(i32) -> $ok;
                serialize_i64(i64) -> $ok;
                serialize_u8(u8) -> $ok;
                serialize_u16(u16) -> $ok;
                serialize_u32(u32) -> $ok;
                serialize_u64(u64) -> $ok;
                serialize_f32(f32) -> $ok;
                serialize_f64(f64) -> $ok;
                serialize_char(char) -> $ok;
                serialize_bytes(&[u8]) -> $ok;
                serialize_none() -> $ok;
                serialize_unit() -> $ok;
                serialize_unit_struct(&'static str) -> $ok;
                serialize_unit_variant(&'static str, u32, &'static str) -> $ok;
                serialize_seq(Option<usize>) -> Self::SerializeSeq;
                serialize_tuple(usize) -> Self::SerializeTuple;
                serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
                serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
                serialize_map(Option<usize>) -> Self::SerializeMap;
                serialize_struct(&'static str, usize) -> Self::SerializeStruct;
                serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
            }
        }
    };
}

impl KeyString {
    fn key(self, v: &str) -> Result<String, Bail> {
        Ok(v.to_owned())
    }
}

impl<'a> KeyLookup<'a> {
    fn key(self, v: &str) -> Result<&'a mut Value, Bail> {
        self.0.get_mut(v).ok_or(Bail)
    }
}

key_serializer!(impl for KeyString => String);
key_serializer!(impl<'a> for KeyLookup<'a> => &'a mut Value);
