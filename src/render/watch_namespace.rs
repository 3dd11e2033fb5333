//! The watch namespace of a ClusterExtension, checked as the target release's OLM v1 checks
//! it, and the target namespaces the conversion then uses.
//!
//! Sources, openshift/operator-framework-operator-controller:
//! - 4.19/4.20 (`WatchNamespaceForm::Annotation`): `internal/operator-controller/applier/watchnamespace.go`
//!   `GetWatchNamespace` reads the ClusterExtension annotation
//!   `olm.operatorframework.io/watch-namespace` (gate on), refuses what is not a DNS-1123
//!   subdomain, and the renderer's `validateTargetNamespaces` does the rest;
//! - 4.21/4.22 (`WatchNamespaceForm::InlineConfig`): `applier/provider.go` validates
//!   `spec.config.inline` against the schema of `rukpak/bundle/registryv1.go`
//!   `buildBundleConfigSchema`: `additionalProperties: false`; `watchNamespace` exists only when
//!   the bundle supports OwnNamespace or SingleNamespace, is required unless it supports
//!   AllNamespaces, and must equal the install namespace (OwnNamespace without
//!   SingleNamespace) or differ from it (SingleNamespace without OwnNamespace). `spec.config`
//!   exists only in the experimental ClusterExtension CRD ([`OlmV1::crd`]); 4.23, 5.0 and 5.1
//!   keep 4.22's provider and schema unchanged.

use std::collections::BTreeSet;

use crate::bundle::InstallModeType;
use crate::openshift::{OlmV1, Release, WatchNamespaceForm};

/// Why a watch namespace (or its absence) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The target release ignores a watch namespace.
    #[error(
        "a watch namespace is ignored by OLM v1 on this release and feature set (it installs for all namespaces only){}",
        accepted_on.as_ref().map(|w| format!("; it is honoured on {w}")).unwrap_or_default()
    )]
    Ignored {
        /// Where it is honoured.
        accepted_on: Option<String>,
    },
    /// The bundle supports only AllNamespaces, so its config schema has no `watchNamespace`.
    #[error(
        "the bundle supports only AllNamespaces, so OLM v1 refuses a watchNamespace (its configuration schema has none); remove watchNamespace"
    )]
    NotConfigurable,
    /// The bundle needs a watch namespace and none is given.
    #[error(
        "the bundle does not support AllNamespaces (it supports {supported}), so OLM v1 needs a watch namespace{}",
        match how {
            Some(h) => format!("; set watchNamespace: {h}"),
            None => String::new(),
        }
    )]
    Required {
        /// The supported modes, for the message.
        supported: String,
        /// What to write (`the install namespace "ns"`, `another namespace than "ns"`).
        how: Option<String>,
    },
    /// OwnNamespace only: the watch namespace must be the install namespace.
    #[error(
        "the bundle supports OwnNamespace but not SingleNamespace, so the watch namespace must be the install namespace {install:?}, not {watch:?}"
    )]
    MustBeInstallNamespace {
        /// The install namespace.
        install: String,
        /// What was given.
        watch: String,
    },
    /// The ClusterExtension CRD the cluster serves has no `spec.config`: the API server would
    /// prune the watch namespace, and OLM v1 would install for all namespaces.
    #[error(
        "the {crd} ClusterExtension CRD this release and feature set serve has no spec.{field}, so the API server would drop the watch namespace"
    )]
    NotServed {
        /// `standard` or `experimental`.
        crd: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// SingleNamespace only: the watch namespace must differ from the install namespace.
    #[error(
        "the bundle supports SingleNamespace but not OwnNamespace, so the watch namespace must differ from the install namespace {install:?}"
    )]
    MustDifferFromInstallNamespace {
        /// The install namespace.
        install: String,
    },
}

fn modes_text(modes: &BTreeSet<InstallModeType>) -> String {
    if modes.is_empty() {
        return "none".into();
    }
    modes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Check `watch` for a bundle with `modes` installed into `install` on `olm`, and return the
/// target namespaces for the conversion (empty: all namespaces). The renderer's own target
/// check runs afterwards, in [`crate::convert`].
pub fn target_namespaces(
    olm: &OlmV1,
    modes: &BTreeSet<InstallModeType>,
    install: &str,
    watch: Option<&str>,
) -> Result<Vec<String>, Error> {
    use InstallModeType::*;
    let own = modes.contains(&OwnNamespace);
    let single = modes.contains(&SingleNamespace);
    let all = modes.contains(&AllNamespaces);
    let Some(form) = olm.watch_namespace else {
        if watch.is_some() {
            return Err(Error::Ignored {
                accepted_on: Release::where_it_holds(|o| o.watch_namespace.is_some()),
            });
        }
        return Ok(Vec::new());
    };
    match form {
        WatchNamespaceForm::Annotation => Ok(watch.map(|w| vec![w.to_owned()]).unwrap_or_default()),
        WatchNamespaceForm::InlineConfig
            if watch.is_some() && !olm.crd.has_spec_field("config") =>
        {
            Err(Error::NotServed {
                crd: olm.crd.name(),
                field: "config",
            })
        }
        WatchNamespaceForm::InlineConfig => {
            let configurable = own || single;
            match watch {
                Some(_) if !configurable => Err(Error::NotConfigurable),
                None if configurable && !all => Err(Error::Required {
                    supported: modes_text(modes),
                    how: match (own, single) {
                        (true, false) => Some(format!("the install namespace {install:?}")),
                        (false, true) => Some(format!("a namespace other than {install:?}")),
                        _ => None,
                    },
                }),
                None => Ok(Vec::new()),
                Some(w) if own && !single && w != install => Err(Error::MustBeInstallNamespace {
                    install: install.to_owned(),
                    watch: w.to_owned(),
                }),
                Some(w) if single && !own && w == install => {
                    Err(Error::MustDifferFromInstallNamespace {
                        install: install.to_owned(),
                    })
                }
                Some(w) => Ok(vec![w.to_owned()]),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openshift::ClusterVersion;
    use crate::openshift::Target;
    use InstallModeType::*;

    fn olm(v: &str, fs: Option<&str>) -> OlmV1 {
        Target::new(&ClusterVersion::parse(v).unwrap(), fs, &[])
            .unwrap()
            .olm_v1()
            .unwrap()
    }

    fn modes(m: &[InstallModeType]) -> BTreeSet<InstallModeType> {
        m.iter().cloned().collect()
    }

    /// The cases of release-4.21 `rukpak/bundle/registryv1.go` `buildBundleConfigSchema`.
    #[test]
    fn inline_config_schema_by_install_modes() {
        let o = olm("4.21", Some("TechPreviewNoUpgrade"));
        let t = |m: &[InstallModeType], w: Option<&str>| target_namespaces(&o, &modes(m), "ns", w);
        assert_eq!(t(&[AllNamespaces], Some("x")), Err(Error::NotConfigurable));
        assert_eq!(t(&[AllNamespaces], None), Ok(vec![]));
        assert!(matches!(
            t(&[OwnNamespace], None),
            Err(Error::Required { .. })
        ));
        assert_eq!(t(&[OwnNamespace], Some("ns")), Ok(vec!["ns".to_string()]));
        assert!(matches!(
            t(&[OwnNamespace], Some("other")),
            Err(Error::MustBeInstallNamespace { .. })
        ));
        assert!(matches!(
            t(&[SingleNamespace], Some("ns")),
            Err(Error::MustDifferFromInstallNamespace { .. })
        ));
        assert_eq!(t(&[SingleNamespace], Some("w")), Ok(vec!["w".to_string()]));
        assert_eq!(
            t(&[OwnNamespace, SingleNamespace], Some("ns")),
            Ok(vec!["ns".to_string()])
        );
        assert_eq!(t(&[OwnNamespace, AllNamespaces], None), Ok(vec![]));
        assert!(matches!(
            t(&[OwnNamespace, AllNamespaces], Some("w")),
            Err(Error::MustBeInstallNamespace { .. })
        ));
    }

    /// The watch namespace goes in `spec.config`, which only the experimental CRD has; a
    /// release whose table row put it there with the standard CRD served is refused, not
    /// written for the API server to prune.
    #[test]
    fn inline_config_needs_a_crd_with_spec_config() {
        let mut o = olm("5.0", Some("TechPreviewNoUpgrade"));
        assert!(o.crd.has_spec_field("config"));
        assert!(target_namespaces(&o, &modes(&[OwnNamespace]), "ns", Some("ns")).is_ok());
        o.crd = crate::openshift::ClusterExtensionCrd::Standard;
        let err = target_namespaces(&o, &modes(&[OwnNamespace]), "ns", Some("ns")).unwrap_err();
        assert_eq!(
            err,
            Error::NotServed {
                crd: "standard",
                field: "config"
            }
        );
        assert!(err.to_string().contains("no spec.config"), "{err}");
        // Without a watch namespace nothing goes in spec.config.
        assert!(target_namespaces(&o, &modes(&[AllNamespaces]), "ns", None).is_ok());
        // Wherever the table honours a watch namespace in spec.config, the CRD has it.
        for v in ["4.21", "4.22", "4.23", "5.0", "5.1"] {
            for fs in [
                None,
                Some("TechPreviewNoUpgrade"),
                Some("DevPreviewNoUpgrade"),
            ] {
                let o = olm(v, fs);
                if o.watch_namespace == Some(WatchNamespaceForm::InlineConfig) {
                    assert!(
                        target_namespaces(
                            &o,
                            &modes(&[OwnNamespace, AllNamespaces]),
                            "ns",
                            Some("ns")
                        )
                        .is_ok(),
                        "{v} {fs:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn ignored_where_the_gate_is_off() {
        let err = target_namespaces(
            &olm("4.21", None),
            &modes(&[OwnNamespace]),
            "ns",
            Some("ns"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("honoured on 4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade"),
            "{err}"
        );
        // 4.22 Default reads spec.config although the gate is off (a bundle without
        // AllNamespaces is then refused by the conversion, as provider.go does).
        assert!(
            target_namespaces(
                &olm("4.22", None),
                &modes(&[OwnNamespace, AllNamespaces]),
                "ns",
                Some("ns")
            )
            .is_ok()
        );
        // 4.19/4.20 read the annotation; the renderer checks the rest.
        assert_eq!(
            target_namespaces(
                &olm("4.19", Some("TechPreviewNoUpgrade")),
                &modes(&[SingleNamespace]),
                "ns",
                Some("ns")
            ),
            Ok(vec!["ns".to_string()])
        );
    }
}
