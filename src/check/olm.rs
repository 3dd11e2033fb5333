//! The OLM v0 rules: Subscriptions, OperatorGroups and CatalogSources as OLM v0's catalog
//! operator reads them (`reference/olm-v0.md` §1.1, §2, §3, §4).
//!
//! - A Subscription resolves only from a CatalogSource in its own namespace or in
//!   `openshift-marketplace`, and only from one that exists: in the set, or a default source the
//!   release creates and no OperatorHub in the set disables (`subscription-source`).
//! - Its namespace must hold exactly one OperatorGroup, counting the ones OpenShift creates
//!   (`global-operators` in `openshift-operators`): with none or several, nothing resolves there
//!   (`operatorgroup-count`).
//! - An OperatorGroup's `targetNamespaces` may not hold `""` (`operatorgroup-targets`).
//! - `installPlanApproval: Manual` holds back every InstallPlan of the namespace
//!   (`subscription-manual`).

use std::collections::BTreeMap;

use super::files::Object;
use super::objects::ObjectSet;
use super::{Sink, str_at};
use crate::openshift::{GLOBAL_OPERATORS_NAMESPACE, MARKETPLACE_NAMESPACE};

const OPERATORS_GROUP: &str = "operators.coreos.com";

/// The OperatorGroups OpenShift creates, by namespace (OLM
/// `manifests/0000_50_olm_13-operatorgroup-default.yaml`).
const RELEASE_GROUPS: &[(&str, &str)] = &[
    (GLOBAL_OPERATORS_NAMESPACE, "global-operators"),
    ("openshift-operator-lifecycle-manager", "olm-operators"),
];

fn is(o: &Object<'_>, kind: &str) -> bool {
    o.group == OPERATORS_GROUP && o.kind == kind
}

pub(crate) fn check(set: &ObjectSet<'_>, sink: &mut Sink) {
    let subscriptions: Vec<&Object<'_>> = set
        .objects
        .iter()
        .filter(|o| is(o, "Subscription"))
        .collect();
    let groups: Vec<&Object<'_>> = set
        .objects
        .iter()
        .filter(|o| is(o, "OperatorGroup"))
        .collect();
    if subscriptions.is_empty() && groups.is_empty() {
        return;
    }
    let version = crate::openshift::ClusterVersion::parse(&set.release.release_name()).ok();
    let defaults = crate::openshift::default_catalog_sources(version.as_ref());
    // What the set's OperatorHub disables.
    let hub = set.objects.iter().find(|o| {
        o.group == "config.openshift.io" && o.kind == "OperatorHub" && o.name == "cluster"
    });
    let disabled = |name: &str| {
        hub.is_some_and(|h| {
            let v = h.value();
            v.pointer("/spec/disableAllDefaultSources") == Some(&serde_json::Value::Bool(true))
                || v.pointer("/spec/sources")
                    .and_then(|s| s.as_array())
                    .is_some_and(|s| {
                        s.iter().any(|x| {
                            x.get("name").and_then(|n| n.as_str()) == Some(name)
                                && x.get("disabled") == Some(&serde_json::Value::Bool(true))
                        })
                    })
        })
    };
    for s in &subscriptions {
        let v = s.value();
        let namespace = s.namespace.as_deref().unwrap_or("");
        let source = str_at(v, "/spec/source").unwrap_or("");
        let source_ns = str_at(v, "/spec/sourceNamespace").unwrap_or("");
        if source_ns != MARKETPLACE_NAMESPACE && source_ns != namespace {
            sink.push(
                "subscription-source",
                s.file,
                s.line("/spec/sourceNamespace"),
                Some(s.label()),
                format!(
                    "sourceNamespace {source_ns:?} is neither the Subscription's namespace nor {MARKETPLACE_NAMESPACE}: OLM v0 sees no CatalogSource there, so nothing resolves"
                ),
            );
        } else if set
            .find(OPERATORS_GROUP, "CatalogSource", Some(source_ns), source)
            .is_none()
        {
            let default =
                source_ns == MARKETPLACE_NAMESPACE && defaults.iter().any(|(n, _)| *n == source);
            if !default || disabled(source) {
                sink.push(
                    "subscription-source",
                    s.file,
                    s.line("/spec/source"),
                    Some(s.label()),
                    if default {
                        format!(
                            "CatalogSource {source_ns}/{source} is one of OpenShift's default sources, which the set's OperatorHub disables, and the set writes none of that name: nothing resolves"
                        )
                    } else {
                        format!(
                            "no CatalogSource {source_ns}/{source} is in the set, and OpenShift {} creates none of that name: nothing resolves",
                            set.release.release_name()
                        )
                    },
                );
            }
        }
        if str_at(v, "/spec/installPlanApproval") == Some("Manual") {
            sink.push(
                "subscription-manual",
                s.file,
                s.line("/spec/installPlanApproval"),
                Some(s.label()),
                format!("installPlanApproval Manual: nothing installs until someone approves the InstallPlan, and every InstallPlan of namespace {namespace} is then Manual"),
            );
        }
    }
    // OperatorGroups per namespace that has a Subscription or a group.
    let mut count: BTreeMap<&str, Vec<&Object<'_>>> = BTreeMap::new();
    for g in &groups {
        count
            .entry(g.namespace.as_deref().unwrap_or(""))
            .or_default()
            .push(g);
        if let Some(targets) = g
            .value()
            .pointer("/spec/targetNamespaces")
            .and_then(|t| t.as_array())
            && targets.iter().any(|t| t.as_str() == Some(""))
        {
            sink.push(
                "operatorgroup-targets",
                g.file,
                g.line("/spec/targetNamespaces"),
                Some(g.label()),
                "targetNamespaces holds \"\", which OLM refuses: leave targetNamespaces out for AllNamespaces".into(),
            );
        }
    }
    let mut namespaces: Vec<&str> = subscriptions
        .iter()
        .filter_map(|s| s.namespace.as_deref())
        .chain(count.keys().copied())
        .collect();
    namespaces.sort_unstable();
    namespaces.dedup();
    for ns in namespaces {
        let own = count.get(ns).map_or(&[][..], Vec::as_slice);
        let release = RELEASE_GROUPS
            .iter()
            .find(|(n, _)| *n == ns)
            .map(|(_, g)| *g);
        let total = own.len() + usize::from(release.is_some());
        if total == 1 {
            continue;
        }
        let (file, line, label) = match (
            own.get(1).or(own.first()),
            subscriptions
                .iter()
                .find(|s| s.namespace.as_deref() == Some(ns)),
        ) {
            (Some(g), _) => (g.file, g.line("/metadata"), g.label()),
            (None, Some(s)) => (s.file, s.line("/metadata/namespace"), s.label()),
            (None, None) => continue,
        };
        let message = if total == 0 {
            format!(
                "namespace {ns} has a Subscription and no OperatorGroup: OLM v0 resolves nothing there (\"expected 1 OperatorGroup in the namespace, found 0\")"
            )
        } else {
            format!(
                "namespace {ns} has {total} OperatorGroups ({}): OLM v0 resolves nothing there, and its CSVs fail with TooManyOperatorGroups",
                own.iter()
                    .map(|g| g.name.clone())
                    .chain(release.map(|r| format!("{r}, which OpenShift creates")))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        sink.push("operatorgroup-count", file, line, Some(label), message);
    }
}
