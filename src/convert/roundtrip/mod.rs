//! The typed round trip: what OLM v1's objects look like after Go decodes them into its
//! typed Kubernetes structs and encodes them again.
//!
//! OLM v1 does not pass a bundle's objects through. `rukpak/bundle/source/source.go` reads
//! each manifest as unstructured (YAML 1.1 scalars, then JSON: [`crate::bundle::yaml11`]),
//! converts the CSV and the CRDs into typed structs with
//! `runtime.DefaultUnstructuredConverter.FromUnstructured`, and the generators
//! (`render/registryv1/generators/generators.go`) build typed `appsv1.Deployment`,
//! `corev1.ServiceAccount`, `corev1.Service`, `rbacv1.*` and webhook configurations; only the
//! bundle's other objects stay `unstructured.Unstructured`. Whatever is typed is written by
//! `encoding/json`, so unknown fields are gone, `resource.Quantity` is in canonical form,
//! and a value of the wrong type is an error.
//!
//! [`typed`] does that for one object whose kind is in a [`TypedKinds`] set; [`untyped`]
//! does what Go's JSON encoder does to every other object (an integral float is written as
//! an integer). [`apply`] is the single call at the end of conversion.
//!
//! Field types come from the `k8s-openapi` crate, generated from the Kubernetes OpenAPI
//! document, with the `v1_36` API: Kubernetes 1.36 is what the newest releases' OLM v1
//! vendors (OpenShift 4.18–4.22 vendor `k8s.io/api` 1.31–1.35; 4.23, 5.0 and 5.1 vendor
//! 1.36). The field set follows the target release: [`fields_by_release`], generated from
//! the Go types each release's operator-controller branch vendors by
//! `scripts/fields-by-release-from-go.py`, lists the fields not every one of those minors
//! has, and the decoder skips a field the target's minor lacks ([`TypedKinds::with_kubernetes_minor`]),
//! so `PodSpec.schedulingGroup` (1.36) survives for 4.23 and is gone for 4.22. Not modelled:
//! a field that an older minor has and 1.36 removed (only `PodSpec.workloadRef`, alpha in
//! 1.35 alone, replaced by `schedulingGroup`): k8s-openapi's 1.36 structs cannot hold it, so
//! it is dropped for 4.22 too.
//!
//! One Go fact the OpenAPI schema does not carry is which fields are pointers: Go drops
//! `priority: 0` or `readOnly: false` (non-pointer, `omitempty`) but keeps `replicas: 0`
//! (`*int32`). [`omitempty`] lists the former, generated from the Go types of the same
//! Kubernetes release by `scripts/omitempty-from-go.py`; the decoder skips such a field
//! when it holds its zero value, so the typed struct leaves it unset, as Go's encoder would.
//! Not modelled: the zero values Go writes for non-pointer structs (`creationTimestamp:
//! null`, `status: {}`, `resources: {}`), "empty values" the regression comparison
//! normalises.

mod de;
mod fields_by_release;
mod omitempty;
pub mod quantity;
mod schema;
mod ser;
mod zero;

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use k8s_openapi::api::admissionregistration::v1 as admissionregistration;
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::rbac::v1 as rbac;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;

pub use de::FieldError;

/// A kind OLM v1 holds in a typed Go struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum TypedKind {
    /// `apps/v1` Deployment (from the CSV's deployment specs).
    Deployment,
    /// `apiextensions.k8s.io/v1` CustomResourceDefinition.
    CustomResourceDefinition,
    /// `v1` ServiceAccount.
    ServiceAccount,
    /// `v1` Service.
    Service,
    /// `rbac.authorization.k8s.io/v1` Role.
    Role,
    /// `rbac.authorization.k8s.io/v1` RoleBinding.
    RoleBinding,
    /// `rbac.authorization.k8s.io/v1` ClusterRole.
    ClusterRole,
    /// `rbac.authorization.k8s.io/v1` ClusterRoleBinding.
    ClusterRoleBinding,
    /// `admissionregistration.k8s.io/v1` ValidatingWebhookConfiguration.
    ValidatingWebhookConfiguration,
    /// `admissionregistration.k8s.io/v1` MutatingWebhookConfiguration.
    MutatingWebhookConfiguration,
}

impl TypedKind {
    /// Every kind, in declaration order.
    pub const ALL: [TypedKind; 10] = [
        TypedKind::Deployment,
        TypedKind::CustomResourceDefinition,
        TypedKind::ServiceAccount,
        TypedKind::Service,
        TypedKind::Role,
        TypedKind::RoleBinding,
        TypedKind::ClusterRole,
        TypedKind::ClusterRoleBinding,
        TypedKind::ValidatingWebhookConfiguration,
        TypedKind::MutatingWebhookConfiguration,
    ];

    /// `apiVersion` and `kind` of objects of this kind.
    pub fn type_meta(self) -> (&'static str, &'static str) {
        match self {
            TypedKind::Deployment => ("apps/v1", "Deployment"),
            TypedKind::CustomResourceDefinition => {
                ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
            }
            TypedKind::ServiceAccount => ("v1", "ServiceAccount"),
            TypedKind::Service => ("v1", "Service"),
            TypedKind::Role => ("rbac.authorization.k8s.io/v1", "Role"),
            TypedKind::RoleBinding => ("rbac.authorization.k8s.io/v1", "RoleBinding"),
            TypedKind::ClusterRole => ("rbac.authorization.k8s.io/v1", "ClusterRole"),
            TypedKind::ClusterRoleBinding => ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
            TypedKind::ValidatingWebhookConfiguration => (
                "admissionregistration.k8s.io/v1",
                "ValidatingWebhookConfiguration",
            ),
            TypedKind::MutatingWebhookConfiguration => (
                "admissionregistration.k8s.io/v1",
                "MutatingWebhookConfiguration",
            ),
        }
    }

    fn of(obj: &Value) -> Option<TypedKind> {
        let api_version = obj.get("apiVersion")?.as_str()?;
        let kind = obj.get("kind")?.as_str()?;
        TypedKind::ALL
            .into_iter()
            .find(|k| k.type_meta() == (api_version, kind))
    }
}

/// Which kinds a renderer round-trips through typed structs, and the Kubernetes minor whose
/// Go types it decodes them into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedKinds {
    kinds: Vec<TypedKind>,
    kube_minor: u64,
}

impl TypedKinds {
    /// operator-controller's `render/registryv1` (OpenShift 4.20 and later, and 4.19's
    /// `rukpak/convert`): the CSV's deployments, the CRDs, and every generated object.
    pub fn registry_v1() -> Self {
        TypedKinds::of(TypedKind::ALL)
    }

    /// What `renderer` decodes into typed structs: 4.18's converter passes the bundle's CRDs
    /// through as they are (openshift/operator-framework-operator-controller release-4.18
    /// `internal/rukpak/convert/registryv1.go`); later ones type every kind.
    pub fn for_renderer(renderer: crate::openshift::Renderer) -> Self {
        match renderer {
            crate::openshift::Renderer::Convert418 => TypedKinds::of(
                TypedKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| *k != TypedKind::CustomResourceDefinition),
            ),
            _ => TypedKinds::registry_v1(),
        }
    }

    /// A set of the given kinds (a renderer that passes some kind through untyped, such as
    /// the 4.18 converter with CRDs, leaves it out).
    pub fn of(kinds: impl IntoIterator<Item = TypedKind>) -> Self {
        let mut v: Vec<TypedKind> = kinds.into_iter().collect();
        v.sort();
        v.dedup();
        TypedKinds {
            kinds: v,
            kube_minor: fields_by_release::NEWEST,
        }
    }

    /// The same kinds, decoded into the Go types of Kubernetes 1.`minor` (the `k8s.io/api`
    /// the target release's OLM v1 vendors): fields those types lack are dropped. Without
    /// this, the newest minor's types (1.36). A minor older than the table's oldest (1.31,
    /// OpenShift 4.18's) is read as the oldest; a newer one as the newest.
    pub fn with_kubernetes_minor(mut self, minor: u64) -> Self {
        self.kube_minor = minor.clamp(fields_by_release::OLDEST, fields_by_release::NEWEST);
        self
    }

    /// The Kubernetes minor whose Go types are followed.
    pub fn kubernetes_minor(&self) -> u64 {
        self.kube_minor
    }

    /// Whether `kind` is round-tripped.
    pub fn contains(&self, kind: TypedKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// An object that Go's typed decode would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} {name:?}: {source}")]
pub struct Error {
    /// The object's kind.
    pub kind: String,
    /// The object's name.
    pub name: String,
    /// The field and what is wrong with it.
    #[source]
    pub source: FieldError,
}

/// Decode `obj` into `T` as Kubernetes 1.`kube_minor`'s Go types would, and encode it
/// again, keys in `obj`'s order ([`order_like`]).
fn round_trip<T: DeserializeOwned + Serialize>(
    obj: &Value,
    kube_minor: u64,
) -> Result<Value, FieldError> {
    let typed: T = T::deserialize(de::GoValue {
        value: obj,
        path: de::Path::Root,
        fold: false,
        kube_minor,
    })?;
    // Fast road: encode over a copy of `obj`; it gives what the slow road below does.
    let mut out = obj.clone();
    if typed.serialize(ser::InPlace(&mut out)).is_ok() {
        return Ok(out);
    }
    drop(out);
    let new = serde_json::to_value(&typed).map_err(<FieldError as serde::de::Error>::custom)?;
    Ok(order_like(obj, new))
}

/// [`round_trip`] of a CRD: its schema trees by [`schema::crd`], which gives the same
/// objects without building a typed struct per schema node (and takes them out of `obj`
/// instead of copying them), the rest by the typed road.
fn crd_round_trip(obj: Value, kube_minor: u64) -> Result<Value, FieldError> {
    let typed = |o: &Value| round_trip::<apiextensions::CustomResourceDefinition>(o, kube_minor);
    #[cfg(debug_assertions)]
    let original = obj.clone();
    let (out, _) = schema::crd(obj, typed);
    // Both roads on every CRD the tests convert: they must give the same text or error.
    #[cfg(debug_assertions)]
    {
        let text = |r: &Result<Value, FieldError>| match r {
            Ok(v) => Ok(serde_json::to_string(v).unwrap_or_default()),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(
            text(&out),
            text(&typed(&original)),
            "the schema road and the typed road differ on {original}"
        );
    }
    out
}

/// Decode `obj` into its typed struct and encode it again, when its kind is in `kinds`;
/// otherwise as [`untyped`]. Keys keep the order they had in `obj` (new ones go last), so
/// the output differs from the input only where Go's would.
pub fn typed(kinds: &TypedKinds, obj: &Value) -> Result<Value, Error> {
    typed_cow(kinds, Cow::Borrowed(obj))
}

/// [`typed`] of an object the caller is done with: what can be moved is not copied.
pub fn typed_owned(kinds: &TypedKinds, obj: Value) -> Result<Value, Error> {
    typed_cow(kinds, Cow::Owned(obj))
}

/// [`typed`] of one of a bundle's CRDs. OLM v1 reads every manifest of kind
/// `CustomResourceDefinition` into apiextensions/v1's struct whatever its `apiVersion`
/// (`rukpak/bundle/source/source.go` switches on the kind alone), so an
/// `apiextensions.k8s.io/v1beta1` CRD keeps its `apiVersion` and loses what v1 has not:
/// `spec.version`, `spec.validation`, the top-level `spec.additionalPrinterColumns` and
/// `spec.subresources`, and `spec.preserveUnknownFields: false` (a non-pointer `omitempty`
/// bool in v1). Where CRDs are not typed (4.18) it is [`untyped`].
pub fn crd(kinds: &TypedKinds, obj: &Value) -> Result<Value, Error> {
    typed_as(
        kinds,
        Some(TypedKind::CustomResourceDefinition),
        Cow::Borrowed(obj),
    )
}

/// [`crd`] of a CRD the caller is done with.
pub fn crd_owned(kinds: &TypedKinds, obj: Value) -> Result<Value, Error> {
    typed_as(
        kinds,
        Some(TypedKind::CustomResourceDefinition),
        Cow::Owned(obj),
    )
}

fn typed_cow(kinds: &TypedKinds, obj: Cow<'_, Value>) -> Result<Value, Error> {
    typed_as(kinds, None, obj)
}

/// The round trip of `obj` as `kind`, or as the kind its `apiVersion` and `kind` name.
fn typed_as(
    kinds: &TypedKinds,
    kind: Option<TypedKind>,
    obj: Cow<'_, Value>,
) -> Result<Value, Error> {
    let Some(kind) = kind
        .or_else(|| TypedKind::of(&obj))
        .filter(|k| kinds.contains(*k))
    else {
        let mut v = obj.into_owned();
        untyped_in_place(&mut v);
        return Ok(v);
    };
    // k8s-openapi checks `apiVersion`; Go's converter copies it into `TypeMeta` as it is. An
    // object read by kind alone (a v1beta1 CRD) is decoded under the struct's own
    // `apiVersion`, which is then put back.
    let (struct_api_version, _) = kind.type_meta();
    let mut obj = obj;
    let written_api_version = match obj.get("apiVersion").and_then(Value::as_str) {
        Some(av) if av != struct_api_version => {
            let av = av.to_owned();
            if let Some(v) = obj.to_mut().get_mut("apiVersion") {
                *v = Value::String(struct_api_version.to_owned());
            }
            Some(av)
        }
        _ => None,
    };
    let m = kinds.kube_minor;
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut out = match kind {
        TypedKind::CustomResourceDefinition => crd_round_trip(obj.into_owned(), m),
        TypedKind::Deployment => round_trip::<apps::Deployment>(&obj, m),
        TypedKind::ServiceAccount => round_trip::<core::ServiceAccount>(&obj, m),
        TypedKind::Service => round_trip::<core::Service>(&obj, m),
        TypedKind::Role => round_trip::<rbac::Role>(&obj, m),
        TypedKind::RoleBinding => round_trip::<rbac::RoleBinding>(&obj, m),
        TypedKind::ClusterRole => round_trip::<rbac::ClusterRole>(&obj, m),
        TypedKind::ClusterRoleBinding => round_trip::<rbac::ClusterRoleBinding>(&obj, m),
        TypedKind::ValidatingWebhookConfiguration => {
            round_trip::<admissionregistration::ValidatingWebhookConfiguration>(&obj, m)
        }
        TypedKind::MutatingWebhookConfiguration => {
            round_trip::<admissionregistration::MutatingWebhookConfiguration>(&obj, m)
        }
    }
    .map_err(|source| Error {
        kind: kind.type_meta().1.to_owned(),
        name,
        source,
    })?;
    if let (Some(av), Some(v)) = (written_api_version, out.get_mut("apiVersion")) {
        *v = Value::String(av);
    }
    untyped_in_place(&mut out);
    Ok(out)
}

/// What Go's `encoding/json` writes for an unstructured object, read back: a float64 with an
/// integral value below 1e21 is written without a fraction, so it is an integer.
pub fn untyped(obj: &Value) -> Value {
    let mut v = obj.clone();
    untyped_in_place(&mut v);
    v
}

/// [`untyped`], in place.
pub fn untyped_in_place(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(int) = n.as_f64().and_then(crate::bundle::yaml11::go_json_float) {
                *v = int;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(untyped_in_place),
        Value::Object(m) => m.values_mut().for_each(untyped_in_place),
        _ => {}
    }
}

/// `new` with its object keys in the order `old` had them, recursively; keys only `new`
/// has go last. Those are not in `new`'s order: taking `old`'s keys out with `swap_remove`
/// moves `new`'s last keys into the holes. The order is still fixed by the two inputs, so
/// output stays reproducible; [`ser`] reproduces it, and changing it would change the
/// bytes (and lock digests) of objects Go's structs add fields to.
fn order_like(old: &Value, new: Value) -> Value {
    match (old, new) {
        (Value::Object(o), Value::Object(mut n)) => {
            let mut out = Map::with_capacity(n.len());
            for (k, ov) in o {
                // `swap_remove`: O(1); what is left is re-appended below in any case.
                if let Some(nv) = n.swap_remove(k) {
                    out.insert(k.clone(), order_like(ov, nv));
                }
            }
            for (k, nv) in n {
                out.insert(k, nv);
            }
            Value::Object(out)
        }
        (Value::Array(o), Value::Array(n)) => Value::Array(
            n.into_iter()
                .enumerate()
                .map(|(i, nv)| match o.get(i) {
                    Some(ov) => order_like(ov, nv),
                    None => nv,
                })
                .collect(),
        ),
        (_, n) => n,
    }
}

/// The one pass at the end of conversion: `typed_objects` (the CSV's deployments, the CRDs,
/// every generated object) go through [`typed`], `unstructured` (the bundle's other
/// objects) through [`untyped`].
pub fn apply(
    kinds: &TypedKinds,
    typed_objects: Vec<Value>,
    unstructured: Vec<Value>,
) -> Result<Vec<Value>, Error> {
    let mut out = Vec::with_capacity(typed_objects.len() + unstructured.len());
    for mut obj in typed_objects {
        if TypedKind::of(&obj).is_some_and(|k| kinds.contains(k)) {
            out.push(typed_owned(kinds, obj)?);
        } else {
            untyped_in_place(&mut obj);
            out.push(obj);
        }
    }
    for mut obj in unstructured {
        untyped_in_place(&mut obj);
        out.push(obj);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
