//! Kubernetes manifests as cluster-bootstrap reads them, with the line of every field.
//!
//! Each file is read as a stream of YAML (or JSON) documents. Every document becomes a
//! `serde_json::Value` (what the API server receives) plus a map from JSON pointer
//! (`/spec/template/spec/hostNetwork`) to the 1-based line and column where that field's key, or
//! that list item, is written, so a problem can name `file:line` of the field itself.
//!
//! Empty and null documents are skipped, as `serde-saphyr`'s multi-document reader does; a file
//! ending in `---` therefore still holds one document.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

/// A 1-based position in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based).
    pub column: usize,
}

/// One document of a manifest file.
#[derive(Debug, Clone)]
pub struct Document {
    /// The document as JSON.
    pub value: Value,
    /// Where each field's key (or list item) is written, by JSON pointer; `""` is the document.
    pub positions: BTreeMap<String, Pos>,
}

impl Document {
    /// The position of the field at `pointer`, or of its nearest ancestor that is written.
    pub fn pos(&self, pointer: &str) -> Pos {
        let mut p = pointer;
        loop {
            if let Some(pos) = self.positions.get(p) {
                return *pos;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.positions.get("").copied().unwrap_or_default(),
            }
        }
    }

    /// The line of the field at `pointer` (or of its nearest written ancestor).
    pub fn line(&self, pointer: &str) -> usize {
        self.pos(pointer).line
    }
}

/// Escape one JSON pointer segment (RFC 6901).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Parse every non-empty document of a file.
pub fn parse(text: &str) -> Result<Vec<Document>, String> {
    let options = serde_saphyr::options! { with_snippet: false };
    let trees: Vec<Spanned<Tree>> =
        serde_saphyr::from_multiple_with_options(text, options).map_err(|e| e.to_string())?;
    Ok(trees
        .into_iter()
        .map(|t| {
            let mut positions = BTreeMap::new();
            let root = pos_of(&t);
            positions.insert(String::new(), root);
            let value = flatten(t.value, String::new(), &mut positions);
            Document { value, positions }
        })
        .collect())
}

fn pos_of<T>(s: &Spanned<T>) -> Pos {
    Pos {
        line: s.referenced.line() as usize,
        column: s.referenced.column() as usize,
    }
}

fn flatten(tree: Tree, path: String, positions: &mut BTreeMap<String, Pos>) -> Value {
    match tree {
        Tree::Scalar(v) => v,
        Tree::Seq(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    let p = format!("{path}/{i}");
                    positions.insert(p.clone(), pos_of(&item));
                    flatten(item.value, p, positions)
                })
                .collect(),
        ),
        Tree::Map(entries) => {
            let mut map = serde_json::Map::new();
            for (key, value) in entries {
                let p = format!("{path}/{}", escape(&key.value));
                positions.insert(p.clone(), pos_of(&key));
                let v = flatten(value.value, p, positions);
                map.insert(key.value.0, v);
            }
            Value::Object(map)
        }
    }
}

/// A YAML node whose children keep their locations.
#[derive(Debug)]
enum Tree {
    Scalar(Value),
    Seq(Vec<Spanned<Tree>>),
    Map(Vec<(Spanned<Key>, Spanned<Tree>)>),
}

/// A mapping key as text (YAML allows numbers and booleans as keys; JSON keeps them as text).
#[derive(Debug)]
struct Key(String);

impl std::ops::Deref for Key {
    type Target = String;
    fn deref(&self) -> &String {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let tree = Tree::deserialize(d)?;
        match tree {
            Tree::Scalar(Value::String(s)) => Ok(Key(s)),
            Tree::Scalar(Value::Null) => Ok(Key("null".into())),
            Tree::Scalar(v) => Ok(Key(v.to_string())),
            _ => Err(de::Error::custom("a mapping key must be a scalar")),
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::from(v)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Tree, E> {
        Ok(Tree::Scalar(
            i64::try_from(v)
                .map(Value::from)
                .or_else(|_| u64::try_from(v).map(Value::from))
                .unwrap_or_else(|_| Value::from(v as f64)),
        ))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Tree, E> {
        Ok(Tree::Scalar(
            u64::try_from(v)
                .map(Value::from)
                .unwrap_or_else(|_| Value::from(v as f64)),
        ))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
        Ok(Tree::Scalar(
            serde_json::Number::from_f64(v)
                .map(Value::Number)
                .unwrap_or(Value::Null),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::String(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::String(v)))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::String(
            String::from_utf8_lossy(v).into_owned(),
        )))
    }
    fn visit_unit<E>(self) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::Null))
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
        Tree::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Tree>>()? {
            items.push(item);
        }
        Ok(Tree::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Key>>()? {
            let value = map.next_value::<Spanned<Tree>>()?;
            entries.push((key, value));
        }
        Ok(Tree::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_its_line() {
        let docs = parse("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    image: x\n  hostNetwork: true\n").unwrap();
        assert_eq!(docs.len(), 1);
        let d = &docs[0];
        assert_eq!(d.line("/kind"), 2);
        assert_eq!(d.line("/spec/containers/0"), 5);
        assert_eq!(d.line("/spec/containers/0/image"), 6);
        assert_eq!(d.line("/spec/hostNetwork"), 7);
        // A missing field points at its nearest written parent.
        assert_eq!(d.line("/spec/tolerations/0"), 3);
        assert_eq!(d.value["spec"]["hostNetwork"], Value::Bool(true));
    }

    #[test]
    fn documents_are_counted_and_empty_ones_skipped() {
        let docs = parse("a: 1\n---\nb: 2\n---\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].line("/b"), 3);
        assert_eq!(parse("a: 1\n---\n").unwrap().len(), 1);
    }

    #[test]
    fn json_is_read_too() {
        let docs = parse("{\"kind\": \"List\",\n \"items\": [1]}").unwrap();
        assert_eq!(docs[0].value["kind"], "List");
        assert_eq!(docs[0].line("/items"), 2);
    }

    #[test]
    fn keys_with_slashes_are_escaped() {
        let docs = parse("metadata:\n  labels:\n    a.io/b: x\n").unwrap();
        assert_eq!(docs[0].line("/metadata/labels/a.io~1b"), 3);
    }

    proptest::proptest! {
        /// Every key of a nested mapping is found at the line it is written on, however deep. (Keys
        /// start with `k`: YAML 1.1 reads `y`, `no`, `on` as booleans, as Kubernetes does.)
        #[test]
        fn every_key_is_at_its_line(keys in proptest::collection::vec("k[a-z0-9./-]{0,8}", 1..12), depth in 0usize..4) {
            let mut keys = keys;
            keys.sort();
            keys.dedup();
            let mut text = String::new();
            let mut prefix = String::new();
            for d in 0..depth {
                text.push_str(&format!("{}n{d}:\n", "  ".repeat(d)));
                prefix.push_str(&format!("/n{d}"));
            }
            let indent = "  ".repeat(depth);
            for k in &keys {
                text.push_str(&format!("{indent}{k}: v\n"));
            }
            let docs = parse(&text).unwrap();
            for (i, k) in keys.iter().enumerate() {
                proptest::prop_assert_eq!(docs[0].line(&format!("{prefix}/{}", escape(k))), depth + i + 1);
            }
        }
    }
}
