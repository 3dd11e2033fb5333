use super::*;
use crate::bundle::yaml11;
use proptest::prelude::*;
use serde_json::json;

fn yaml(text: &str) -> Value {
    yaml11::from_multiple(text).unwrap().remove(0)
}

fn deployment(spec_yaml: &str) -> Value {
    let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "op"}});
    d["spec"] = yaml(spec_yaml);
    d
}

fn rt(obj: &Value) -> Value {
    typed(&TypedKinds::registry_v1(), obj).unwrap()
}

/// `defaultMode: 0755` in a CSV deployment volume (olmv1-e2e-test-catalog test-operator
/// v1.0.0). go-yaml v2 `resolve` reads it as octal, `fromUnstructured` puts 493 into
/// `SecretVolumeSource.DefaultMode *int32`, `encoding/json` writes `493`.
#[test]
fn octal_default_mode_is_the_integer_493() {
    let d = deployment(
        "template:\n  spec:\n    volumes:\n    - name: certs\n      secret:\n        secretName: s\n        defaultMode: 0755\n",
    );
    let out = rt(&d);
    let mode = &out["spec"]["template"]["spec"]["volumes"][0]["secret"]["defaultMode"];
    assert_eq!(mode, &json!(493));
    assert!(mode.is_i64());
}

/// `resource.Quantity.MarshalJSON` (apimachinery `quantity.go`) writes the canonical form
/// of what `UnmarshalJSON` read: the pairs from the issue, plus a number.
#[test]
fn quantities_are_canonical() {
    let d = deployment(
        "template:\n  spec:\n    containers:\n    - name: c\n      resources:\n        limits: {memory: 1024Mi, cpu: 1000m}\n        requests: {memory: 2560Mi, cpu: 0.5, ephemeral-storage: 3072Mi}\n",
    );
    let out = rt(&d);
    let res = &out["spec"]["template"]["spec"]["containers"][0]["resources"];
    assert_eq!(res["limits"], json!({"memory": "1Gi", "cpu": "1"}));
    assert_eq!(
        res["requests"],
        json!({"memory": "2560Mi", "cpu": "500m", "ephemeral-storage": "3Gi"})
    );
}

/// `structFromUnstructured` (apimachinery `converter.go`) looks each Go field up by its
/// exact JSON name: a field the struct does not declare, or one spelled with other
/// capitals, is dropped.
#[test]
fn unknown_and_mixed_case_fields_are_dropped() {
    let d = deployment(
        "replicas: 2\nnotAField: x\ntemplate:\n  spec:\n    ServiceAccountName: wrong-case\n    serviceAccountName: op\n    containers:\n    - name: c\n      Image: nope\n      image: quay.io/op:1\n",
    );
    let out = rt(&d);
    assert_eq!(out["spec"].get("notAField"), None);
    let pod = &out["spec"]["template"]["spec"];
    assert_eq!(pod.get("ServiceAccountName"), None);
    assert_eq!(pod["serviceAccountName"], "op");
    assert_eq!(pod["containers"][0].get("Image"), None);
    assert_eq!(pod["containers"][0]["image"], "quay.io/op:1");
    assert_eq!(out["spec"]["replicas"], 2);
}

/// `CustomResourceColumnDefinition.Priority` is an `int32` with `omitempty` in Go
/// (k8s.io/apiextensions-apiserver `pkg/apis/apiextensions/v1/types.go`), and
/// `encoding/json`'s `isEmptyValue` drops a zero int: `priority: 0` goes, `priority: 1`
/// stays. The same holds for `JSONSchemaProps.Description` (a `string`, `omitempty`).
#[test]
fn printer_column_priority_zero_is_dropped_as_go_drops_it() {
    let crd = yaml(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.example.com}\nspec:\n  group: example.com\n  names: {kind: A, plural: a}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    additionalPrinterColumns:\n    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp, priority: 1, bogus: x}\n    - {name: Size, type: integer, jsonPath: .spec.size, priority: 0, description: \"\"}\n    schema:\n      openAPIV3Schema:\n        type: object\n        description: \"\"\n        properties:\n          spec: {type: object, properties: {}, required: [], x-kubernetes-preserve-unknown-fields: false}\n",
    );
    let out = rt(&crd);
    let cols = &out["spec"]["versions"][0]["additionalPrinterColumns"];
    assert_eq!(cols[0]["priority"], 1);
    assert_eq!(cols[0].get("bogus"), None);
    assert_eq!(cols[1].get("priority"), None, "{}", cols[1]);
    assert_eq!(cols[1].get("description"), None, "{}", cols[1]);
    let schema = &out["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(schema.get("description"), None);
    let spec = &schema["properties"]["spec"];
    // `properties` (a map) and `required` (a slice) are `omitempty`: empty ones go.
    // `x-kubernetes-preserve-unknown-fields` is a `*bool`: a pointer is empty only when
    // nil, so an explicit `false` stays.
    assert_eq!(spec.get("properties"), None, "{spec}");
    assert_eq!(spec.get("required"), None, "{spec}");
    assert_eq!(spec["x-kubernetes-preserve-unknown-fields"], false);
}

/// A schema under `items` is decoded through the `JSONSchemaPropsOrArray` union, not as a
/// struct field: its empty `omitempty` fields go too.
#[test]
fn empty_fields_go_in_schemas_under_items() {
    let crd = yaml(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.example.com}\nspec:\n  group: example.com\n  names: {kind: A, plural: a}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          list:\n            type: array\n            items: {type: string, description: \"\", enum: [], nullable: false, maxLength: 0}\n",
    );
    let out = rt(&crd);
    let items =
        &out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["list"]["items"];
    // `maxLength` is an `*int64`: its zero stays.
    assert_eq!(
        *items,
        serde_json::json!({"type": "string", "maxLength": 0}),
        "{items}"
    );
}

/// Non-pointer `omitempty` fields of a Deployment (k8s.io/api `core/v1/types.go`,
/// `apps/v1/types.go`, apimachinery `meta/v1/types.go`) holding their zero value are gone,
/// as `encoding/json` writes them; pointer fields (`replicas *int32`) and fields without
/// `omitempty` (`containerPort`) keep a zero; a zero of the wrong JSON type is still
/// refused by the typed decode.
#[test]
fn zero_values_go_where_go_omits_them() {
    let d = deployment(
        "replicas: 0\nminReadySeconds: 0\npaused: false\ntemplate:\n  metadata: {labels: {}, annotations: {}}\n  spec:\n    containers:\n    - name: c\n      image: quay.io/op:1\n      args: []\n      workingDir: \"\"\n      ports: [{containerPort: 0, hostPort: 0, protocol: \"\"}]\n      volumeMounts: [{name: v, mountPath: /v, readOnly: false}]\n",
    );
    let out = rt(&d);
    let spec = &out["spec"];
    assert_eq!(spec["replicas"], 0);
    assert_eq!(spec.get("minReadySeconds"), None);
    assert_eq!(spec.get("paused"), None);
    let meta = &spec["template"]["metadata"];
    assert_eq!(meta.get("labels"), None, "{meta}");
    assert_eq!(meta.get("annotations"), None, "{meta}");
    let c = &spec["template"]["spec"]["containers"][0];
    assert_eq!(c.get("args"), None);
    assert_eq!(c.get("workingDir"), None);
    assert_eq!(c["ports"][0], serde_json::json!({"containerPort": 0}));
    assert_eq!(
        c["volumeMounts"][0],
        serde_json::json!({"name": "v", "mountPath": "/v"})
    );

    let err = typed(&TypedKinds::registry_v1(), &deployment("paused: 0\n")).unwrap_err();
    assert_eq!(err.source.path.as_deref(), Some("spec.paused"));
}

/// `fromUnstructured`: `cannot convert string to bool`, and a float with a fraction does
/// not go into an int32.
#[test]
fn wrong_types_are_refused_with_the_field() {
    let d = deployment("paused: \"yes\"\n");
    let err = typed(&TypedKinds::registry_v1(), &d).unwrap_err();
    assert_eq!(err.source.path.as_deref(), Some("spec.paused"));
    assert!(
        err.to_string().contains("cannot convert string to bool"),
        "{err}"
    );

    let d = deployment("replicas: 1.5\n");
    let err = typed(&TypedKinds::registry_v1(), &d).unwrap_err();
    assert_eq!(err.source.path.as_deref(), Some("spec.replicas"));
    assert!(
        err.to_string().contains("cannot convert float64 to int32"),
        "{err}"
    );

    // An integral float is accepted, as `sv.Float() == math.Trunc(sv.Float())` allows.
    let d = deployment("replicas: 3.0\n");
    assert_eq!(rt(&d)["spec"]["replicas"], 3);
}

#[test]
fn a_bad_quantity_names_the_field() {
    let d = deployment(
        "template:\n  spec:\n    containers:\n    - name: c\n      resources: {limits: {memory: 12 GB}}\n",
    );
    let err = typed(&TypedKinds::registry_v1(), &d).unwrap_err();
    assert_eq!(
        err.source.path.as_deref(),
        Some("spec.template.spec.containers[0].resources.limits.memory")
    );
}

#[test]
fn kinds_outside_the_set_stay_unstructured() {
    let cm =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "extra": 1.0});
    assert_eq!(
        rt(&cm),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "extra": 1})
    );
    let no_crds = TypedKinds::of([TypedKind::Deployment]);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "x"}, "unknown": true});
    assert_eq!(typed(&no_crds, &crd).unwrap()["unknown"], true);
}

#[test]
fn key_order_is_kept() {
    let d = deployment("template: {spec: {containers: [{name: c, image: i}]}}\nreplicas: 1\n");
    let out = rt(&d);
    let keys: Vec<&String> = out["spec"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["template", "replicas", "selector"]);
}

fn int_valued() -> impl Strategy<Value = (String, i64)> {
    prop_oneof![
        any::<i32>().prop_map(|i| (i.to_string(), i as i64)),
        (0i64..0o7777).prop_map(|i| (format!("0{i:o}"), i)),
        (0i64..0xffff).prop_map(|i| (format!("0x{i:x}"), i)),
        (-100000i64..100000).prop_map(|i| (format!("{i}.0"), i)),
        (1i64..1000).prop_map(|i| (format!("{i}e3"), i * 1000)),
        (0i64..1_000_000).prop_map(|i| (format!("+{i}"), i)),
    ]
}

proptest! {
    /// Any integer-valued number in a bundle's manifest, in any spelling go-yaml v2 reads
    /// as a number, is an integer after conversion: in typed int32 fields and in
    /// unstructured objects alike.
    #[test]
    fn integer_valued_numbers_stay_integers((text, want) in int_valued()) {
        let cm = yaml(&format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ncount: {text}\n"));
        let out = rt(&cm);
        prop_assert!(out["count"].is_i64(), "{} gave {}", text, out["count"]);
        prop_assert_eq!(out["count"].as_i64(), Some(want));

        if i32::try_from(want).is_ok() {
            let d = deployment(&format!("minReadySeconds: {text}\n"));
            let out = rt(&d);
            if want == 0 {
                // `minReadySeconds` is `omitempty`: Go's encoder leaves a zero out.
                prop_assert!(out["spec"].get("minReadySeconds").is_none(), "{}", out["spec"]);
            } else {
                prop_assert!(out["spec"]["minReadySeconds"].is_i64());
                prop_assert_eq!(out["spec"]["minReadySeconds"].as_i64(), Some(want));
            }
        }
    }
}

/// The OLM v1 e2e bundle that carries `defaultMode: 0755` (read in place from
/// `../shared/realdata`): the converted Deployment holds the integer 493.
#[test]
fn realdata_e2e_test_operator_default_mode() {
    let Some(root) = crate::catalog::tests::realdata("realdata_e2e_test_operator_default_mode")
    else {
        return;
    };
    let dir = root.join("olmv1-e2e-test-catalog/bundles/test-operator/v1.0.0");
    let bundle = crate::bundle::RegistryV1::from_dir(&dir).unwrap();
    let objects = crate::convert::convert(
        &bundle,
        &crate::convert::Options {
            install_namespace: "test-ns".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let dep = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
    let volumes = dep["spec"]["template"]["spec"]["volumes"]
        .as_array()
        .unwrap();
    let modes: Vec<&Value> = volumes
        .iter()
        .filter_map(|v| v.get("configMap").and_then(|c| c.get("defaultMode")))
        .collect();
    assert_eq!(modes, [&json!(493)]);
}

/// `JSONSchemaPropsOrArray.UnmarshalJSON` (apiextensions-apiserver `v1/marshal.go`) decodes
/// an `items` schema with `encoding/json`, which matches `Type` to the `type` field
/// (`indirect` / `fieldByName` fold the case); the converter above it does not fold.
#[test]
fn schemas_under_items_match_field_names_case_insensitively() {
    let crd = yaml(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.example.com}\nspec:\n  group: example.com\n  names: {kind: A, plural: a}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        Type: object\n        type: object\n        properties:\n          list:\n            type: array\n            items: {Type: string, MaxLength: 5}\n",
    );
    let out = rt(&crd);
    let schema = &out["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(schema.get("Type"), None);
    assert_eq!(
        schema["properties"]["list"]["items"],
        json!({"type": "string", "maxLength": 5})
    );
}

/// The in-place encoding (`ser::InPlace`) gives exactly what `to_value` and `order_like`
/// give, key order included: unknown and mixed-case fields, fields the struct adds, lists
/// that grow, values that change type.
#[test]
fn in_place_encoding_is_to_value_then_order_like() {
    fn both<T: DeserializeOwned + Serialize>(obj: &Value) {
        let typed: T = T::deserialize(de::GoValue {
            value: obj,
            path: de::Path::Root,
            fold: false,
            kube_minor: fields_by_release::NEWEST,
        })
        .unwrap();
        let slow = order_like(obj, serde_json::to_value(&typed).unwrap());
        let mut fast = obj.clone();
        typed.serialize(ser::InPlace(&mut fast)).unwrap();
        assert_eq!(
            serde_json::to_string(&fast).unwrap(),
            serde_json::to_string(&slow).unwrap()
        );
    }
    both::<apps::Deployment>(&deployment(
        "template:\n  spec:\n    containers:\n    - name: c\n      Image: i\n      bogus: 1\n      resources: {limits: {cpu: 1000m}}\n    volumes:\n    - name: v\n      secret: {defaultMode: 0755}\nreplicas: 1\nextra: {a: 1}\n",
    ));
    both::<apiextensions::CustomResourceDefinition>(&yaml(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xs.example.com, unknown: 1}\nspec:\n  Group: example.com\n  scope: Namespaced\n  names: {plural: xs, kind: X}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        Description: d\n        properties:\n          spec: {type: object, x-kubernetes-preserve-unknown-fields: true, default: {b: 1, a: [1, 2.0]}}\n          n: {type: integer, minimum: 1.0, enum: [1, 2]}\n",
    ));
    both::<rbac::ClusterRole>(&yaml(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n- apiGroups: ['']\n  resources: [pods]\n- verbs: [get]\n  nonsense: true\n",
    ));
}

fn pod_spec_of(out: &Value) -> &serde_json::Map<String, Value> {
    out["spec"]["template"]["spec"].as_object().unwrap()
}

/// The field set follows the Kubernetes minor of the target release's Go types:
/// `PodSpec.schedulingGroup` (1.36) survives for 1.36 and is dropped for 1.35;
/// `hostnameOverride` (1.34) is kept from 1.34 on.
#[test]
fn fields_follow_the_kubernetes_minor() {
    let d = deployment(
        "template:\n  spec:\n    containers: [{name: c}]\n    schedulingGroup: {podGroupName: g}\n    hostnameOverride: h\n",
    );
    let at =
        |minor: u64| typed(&TypedKinds::registry_v1().with_kubernetes_minor(minor), &d).unwrap();
    let newest = typed(&TypedKinds::registry_v1(), &d).unwrap();
    assert_eq!(
        newest["spec"]["template"]["spec"]["schedulingGroup"],
        json!({"podGroupName": "g"})
    );
    for m in [36, 37, 40] {
        assert_eq!(at(m), newest, "1.{m}");
    }
    let spec35 = at(35);
    assert!(!pod_spec_of(&spec35).contains_key("schedulingGroup"));
    assert_eq!(spec35["spec"]["template"]["spec"]["hostnameOverride"], "h");
    for m in [33, 31, 20] {
        let out = at(m);
        let spec = pod_spec_of(&out);
        assert!(!spec.contains_key("schedulingGroup"), "1.{m}");
        assert!(!spec.contains_key("hostnameOverride"), "1.{m}");
        assert!(spec.contains_key("containers"), "1.{m}");
    }
    // A field the release lacks is skipped, not checked: a wrong type there is no error.
    let mut bad = d.clone();
    bad["spec"]["template"]["spec"]["schedulingGroup"] = json!("not an object");
    assert!(typed(&TypedKinds::registry_v1().with_kubernetes_minor(35), &bad).is_ok());
    assert!(typed(&TypedKinds::registry_v1(), &bad).is_err());
}

/// The fast road (`schema::crd`) reads k8s-openapi's newest fields; it is right only while
/// no schema struct has a field that some minor lacks.
#[test]
fn schema_structs_have_one_field_set_across_releases() {
    for s in ["JSONSchemaProps", "ExternalDocumentation", "ValidationRule"] {
        assert_eq!(
            fields_by_release::varying(s),
            &[] as &[(&str, u64, u64)],
            "{s}"
        );
    }
}

/// An `apiextensions.k8s.io/v1beta1` CRD goes through apiextensions/v1's struct as OLM v1's
/// bundle source reads it: its `apiVersion` stays, the v1beta1-only fields and
/// `preserveUnknownFields: false` go; `true` stays.
#[test]
fn v1beta1_crd_through_the_v1_struct() {
    let crd_v1beta1 = yaml(
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  version: v1alpha1\n  scope: Namespaced\n  preserveUnknownFields: false\n  names: {kind: Widget, plural: widgets}\n  validation:\n    openAPIV3Schema: {type: object}\n  subresources: {status: {}}\n  additionalPrinterColumns: [{name: Age, type: date, JSONPath: .metadata.creationTimestamp}]\n  versions:\n  - {name: v1alpha1, served: true, storage: true}\n",
    );
    let out = crd(&TypedKinds::registry_v1(), &crd_v1beta1).unwrap();
    assert_eq!(out["apiVersion"], "apiextensions.k8s.io/v1beta1");
    let spec = out["spec"].as_object().unwrap();
    let keys: Vec<&str> = spec.keys().map(String::as_str).collect();
    assert_eq!(keys, ["group", "scope", "names", "versions"]);
    assert_eq!(
        out["spec"]["versions"],
        json!([{"name": "v1alpha1", "served": true, "storage": true}])
    );
    assert_eq!(
        crd_owned(&TypedKinds::registry_v1(), crd_v1beta1.clone()).unwrap(),
        out
    );
    // `typed` goes by apiVersion and kind, as for generated objects: v1beta1 is not typed.
    assert_eq!(
        typed(&TypedKinds::registry_v1(), &crd_v1beta1).unwrap(),
        crd_v1beta1
    );

    let mut keep = crd_v1beta1.clone();
    keep["spec"]["preserveUnknownFields"] = json!(true);
    let out = crd(&TypedKinds::registry_v1(), &keep).unwrap();
    assert_eq!(out["spec"]["preserveUnknownFields"], true);

    // Where CRDs are not typed (4.18's converter), the CRD is left as it is.
    let no_crds = TypedKinds::of([TypedKind::Deployment]);
    assert_eq!(crd(&no_crds, &crd_v1beta1).unwrap(), crd_v1beta1);
}
