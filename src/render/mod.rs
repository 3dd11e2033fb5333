//! Render: the output profile plus each operator's resolution become a list of Kubernetes
//! objects, from minijinja templates embedded in the binary (`templates/*.yaml.j2`) and
//! overridable with `--templates DIR`.
//!
//! A template must render exactly one YAML object with `apiVersion`, `kind` and `metadata.name`;
//! anything else fails the run before a file is written. Profiles are chosen from the target
//! OpenShift release (see [`Profile::for_target`]).

pub mod api_rules;
pub mod installer_rbac;
pub mod offline;
pub mod profile;
pub mod watch_namespace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub use profile::Profile;

/// `(name, text)` of templates embedded from `templates/`.
macro_rules! embedded_templates {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../templates/", $name)))),*]
    };
}

/// Largest template override read (the embedded ones are a few KB).
const MAX_TEMPLATE_BYTES: u64 = 1024 * 1024;

/// The templates shipped in the binary, by file name.
pub const EMBEDDED_TEMPLATES: &[(&str, &str)] = embedded_templates![
    "platformoperator.yaml.j2",
    "bundledeployment.yaml.j2",
    "namespace.yaml.j2",
    "serviceaccount.yaml.j2",
    "clusterrole.yaml.j2",
    "clusterrolebinding.yaml.j2",
    "role.yaml.j2",
    "rolebinding.yaml.j2",
    "clusterextension.yaml.j2",
    "clustercatalog.yaml.j2",
    "operatorhub.yaml.j2",
    "catalogsource.yaml.j2",
    "operatorgroup.yaml.j2",
    "subscription.yaml.j2",
];

/// One rendered object, with the operator it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedObject {
    /// The operator (config `name`).
    pub operator: String,
    /// The object.
    pub object: Value,
}

impl RenderedObject {
    /// `kind`.
    pub fn kind(&self) -> &str {
        self.object
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    /// `metadata.namespace`, if set.
    pub fn namespace(&self) -> Option<&str> {
        self.object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    }
}

/// Errors rendering templates.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A template override directory could not be read.
    #[error("cannot read template {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A template does not compile or fails to render.
    #[error("template {name}: {message}")]
    Template {
        /// Template file name.
        name: String,
        /// What minijinja said.
        message: String,
    },
    /// The installer RBAC cannot be derived from the converted bundle.
    #[error("operator {operator}: cannot derive the installer's RBAC: {message}")]
    Rbac {
        /// The operator.
        operator: String,
        /// Why.
        message: String,
    },
    /// A template's output is not exactly one Kubernetes object.
    #[error(
        "template {name} for operator {operator} must render exactly one Kubernetes object: {message}"
    )]
    NotOneObject {
        /// Template file name.
        name: String,
        /// The operator it was rendered for.
        operator: String,
        /// What is wrong.
        message: String,
    },
}

/// The template set: embedded templates, with overrides from a directory.
pub struct Templates {
    env: minijinja::Environment<'static>,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates").finish_non_exhaustive()
    }
}

impl Templates {
    /// The embedded templates, each replaced by the file of the same name in `overrides` when it
    /// exists there. Files in `overrides` that match no embedded template are an error (a typo
    /// would otherwise be silently ignored).
    pub fn load(overrides: Option<&Path>) -> Result<Templates, Error> {
        let mut sources: BTreeMap<String, String> = EMBEDDED_TEMPLATES
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        if let Some(dir) = overrides {
            let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            let mut names = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|source| Error::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
            names.sort();
            for name in names {
                if !name.ends_with(".j2") {
                    continue;
                }
                if !sources.contains_key(&name) {
                    return Err(Error::Template {
                        name,
                        message: format!(
                            "no embedded template has this name (known: {})",
                            EMBEDDED_TEMPLATES
                                .iter()
                                .map(|(n, _)| *n)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
                let path = dir.join(&name);
                // Bounded, regular files only, no symlink out of the templates folder.
                let text = crate::fsread::read_to_string(&path, MAX_TEMPLATE_BYTES, Some(dir))
                    .map_err(|source| Error::Io { path, source })?;
                sources.insert(name, text);
            }
        }
        let mut env = minijinja::Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        for (name, text) in sources {
            env.add_template_owned(name.clone(), text)
                .map_err(|e| Error::Template {
                    name,
                    message: template_message(&e),
                })?;
        }
        Ok(Templates { env })
    }

    /// Render one template for an operator and check it is exactly one object.
    pub fn render<C: Serialize>(
        &self,
        name: &str,
        operator: &str,
        context: &C,
    ) -> Result<RenderedObject, Error> {
        let template = self.env.get_template(name).map_err(|e| Error::Template {
            name: name.into(),
            message: template_message(&e),
        })?;
        let text = template
            .render(minijinja::Value::from(minijinja::value::Serde(context)))
            .map_err(|e| Error::Template {
                name: name.into(),
                message: template_message(&e),
            })?;
        let not_one = |message: String| Error::NotOneObject {
            name: name.into(),
            operator: operator.into(),
            message,
        };
        let docs: Vec<Value> =
            serde_saphyr::from_multiple(&text).map_err(|e| not_one(format!("not YAML: {e}")))?;
        let mut docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
        if docs.len() != 1 {
            return Err(not_one(format!("it rendered {} documents", docs.len())));
        }
        let object = docs.remove(0);
        check_object(&object).map_err(not_one)?;
        Ok(RenderedObject {
            operator: operator.to_string(),
            object,
        })
    }
}

fn template_message(e: &minijinja::Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// Check that a value is a Kubernetes object: a mapping with string `apiVersion`, `kind`, and a
/// non-empty `metadata.name`.
pub fn check_object(object: &Value) -> Result<(), String> {
    if !object.is_object() {
        return Err("the document is not a mapping".into());
    }
    for key in ["apiVersion", "kind"] {
        match object.get(key).and_then(Value::as_str) {
            Some(s) if !s.is_empty() => {}
            _ => return Err(format!("`{key}` is missing or not a string")),
        }
    }
    match object.pointer("/metadata/name").and_then(Value::as_str) {
        Some(s) if !s.is_empty() => Ok(()),
        _ => Err("`metadata.name` is missing or not a string".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embedded_platformoperator_renders_one_object() {
        let t = Templates::load(None).unwrap();
        let o = t
            .render(
                "platformoperator.yaml.j2",
                "cm",
                &json!({"operator": {"name": "cm", "package": "cert-manager"}}),
            )
            .unwrap();
        assert_eq!(o.kind(), "PlatformOperator");
        assert_eq!(
            o.object.pointer("/spec/package/name"),
            Some(&json!("cert-manager"))
        );
    }

    #[test]
    fn hostile_values_stay_one_scalar() {
        let t = Templates::load(None).unwrap();
        let o = t
            .render(
                "namespace.yaml.j2",
                "x",
                &json!({"namespace": "a\nkind: Secret\n---\nb: 'c'"}),
            )
            .unwrap();
        assert_eq!(o.kind(), "Namespace");
        assert_eq!(o.name(), "a\nkind: Secret\n---\nb: 'c'");
    }

    #[test]
    fn override_that_renders_two_objects_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("namespace.yaml.j2"),
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n",
        )
        .unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        let e = t
            .render("namespace.yaml.j2", "op", &json!({"namespace": "n"}))
            .unwrap_err();
        assert!(e.to_string().contains("rendered 2 documents"), "{e}");
    }

    #[test]
    fn override_with_unknown_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("platfromoperator.yaml.j2"), "x").unwrap();
        let e = Templates::load(Some(dir.path())).unwrap_err();
        assert!(e.to_string().contains("no embedded template"), "{e}");
    }

    #[test]
    fn undefined_variable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("namespace.yaml.j2"),
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: {{ nope }}}\n",
        )
        .unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        assert!(
            t.render("namespace.yaml.j2", "op", &json!({"namespace": "n"}))
                .is_err()
        );
    }
}
