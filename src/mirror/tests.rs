use super::imageset::{self, Selection};
use super::*;

fn rule(source: &str, mirror: &str) -> MirrorRule {
    MirrorRule {
        source: source.into(),
        mirrors: vec![mirror.into()],
        never_contact_source: false,
        origin: "imageDigestSources[0]".into(),
    }
}

const D: &str = "@sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn img(name: &str) -> ImageRef {
    ImageRef::parse(name).unwrap()
}

mod rules {
    use super::*;

    #[test]
    fn images_on_a_mirror_registry_are_recognised() {
        let rules = [rule(
            "registry.redhat.io/redhat",
            "mirror.local:5000/rh/redhat",
        )];
        assert!(on_mirror_registry(
            "mirror.local:5000/other/index:v4.14",
            &rules
        ));
        assert!(!on_mirror_registry(
            "mirror.local/other/index:v4.14",
            &rules
        ));
        assert!(!on_mirror_registry(
            "registry.redhat.io/redhat/index:v4.14",
            &rules
        ));
    }
}

mod findings {
    use super::*;

    fn use_of(image: &str) -> ImageUse {
        ImageUse {
            image: image.into(),
            operator: "op".into(),
            role: Role::Bundle,
        }
    }

    #[test]
    fn tag_is_not_pinned_and_uncovered_gets_a_suggestion() {
        let rules = [rule(
            "registry.redhat.io/rhosdt",
            "mirror.local:5000/rh/rhosdt",
        )];
        let images = [
            use_of(&format!("registry.redhat.io/rhosdt/a{D}")),
            use_of("registry.redhat.io/rhosdt/a:1.0"),
            use_of(&format!("registry.redhat.io/openshift4/proxy{D}")),
            use_of("Not A Ref"),
        ];
        let f = check(&images, &rules);
        assert_eq!(f.len(), 3, "{f:#?}");
        assert!(matches!(f[0], Finding::Invalid { .. }));
        let Finding::NotMirrored { suggestion, .. } = &f[1] else {
            panic!("{f:#?}")
        };
        assert_eq!(
            suggestion,
            "imageDigestSources:\n- source: registry.redhat.io/openshift4/proxy\n  mirrors:\n  - mirror.local:5000/rh/openshift4/proxy"
        );
        assert!(matches!(f[2], Finding::NotPinned { .. }));
    }

    #[test]
    fn no_rules_suggests_a_placeholder() {
        let s = suggest_rule(&img(&format!("quay.io/a/b{D}")), &[]);
        assert!(s.contains("<mirror-registry>/a/b"), "{s}");
    }
}

mod workloads {
    use super::*;
    use serde_json::json;

    #[test]
    fn containers_and_init_containers_of_deployments() {
        let objects = [
            json!({"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {
                "initContainers": [{"name": "i", "image": "quay.io/i@sha256:1"}],
                "containers": [{"name": "c", "image": "quay.io/c:1"}, {"name": "noimage"}]}}}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {}}),
        ];
        let uses = workload_images("op", &objects);
        let images: Vec<&str> = uses.iter().map(|u| u.image.as_str()).collect();
        assert_eq!(images, ["quay.io/i@sha256:1", "quay.io/c:1"]);
        assert_eq!(
            uses[1].role.to_string(),
            "container \"c\" of Deployment \"d\""
        );
    }
}

mod image_set {
    use super::*;

    fn sel(package: &str, version: &str, channels: &[&str]) -> Selection {
        Selection {
            catalog: "registry.redhat.io/redhat/redhat-operator-index:v4.14".into(),
            package: package.into(),
            default_channel: "stable".into(),
            channels: channels.iter().map(|c| c.to_string()).collect(),
            version: version.into(),
            parsed: semver::Version::parse(version).ok(),
        }
    }

    #[test]
    fn pins_each_channel_to_the_resolved_version() {
        let v = imageset::image_set(&[sel("jaeger-product", "1.47.1-5", &["stable"])]);
        assert_eq!(
            v,
            serde_json::json!({
                "kind": "ImageSetConfiguration",
                "apiVersion": "mirror.openshift.io/v2alpha1",
                "mirror": {"operators": [{
                    "catalog": "registry.redhat.io/redhat/redhat-operator-index:v4.14",
                    "packages": [{"name": "jaeger-product", "channels": [
                        {"name": "stable", "minVersion": "1.47.1-5", "maxVersion": "1.47.1-5"}]}]}]}
            })
        );
    }

    #[test]
    fn default_channel_is_named_when_filtered_out_and_ranges_merge() {
        let v = imageset::image_set(&[sel("p", "1.2.0", &["fast"]), sel("p", "1.10.0", &["fast"])]);
        let p = &v["mirror"]["operators"][0]["packages"][0];
        assert_eq!(p["defaultChannel"], "fast");
        assert_eq!(p["channels"][0]["minVersion"], "1.2.0");
        assert_eq!(p["channels"][0]["maxVersion"], "1.10.0");
    }

    #[test]
    fn channels_follow_the_configuration() {
        let all = ["a".to_string(), "b".to_string()];
        assert_eq!(imageset::channels_for(&all, &[]), all);
        assert_eq!(imageset::channels_for(&all, &["b".into()]), ["b"]);
    }

    #[test]
    fn mirrored_catalog_maps_back_to_its_source() {
        let rules = [rule(
            "registry.redhat.io/redhat",
            "mirror.local:5000/rh/redhat",
        )];
        assert_eq!(
            imageset::source_of(
                "mirror.local:5000/rh/redhat/redhat-operator-index:v4.14",
                &rules
            )
            .as_deref(),
            Some("registry.redhat.io/redhat/redhat-operator-index:v4.14")
        );
        assert_eq!(imageset::source_of("quay.io/x:1", &rules), None);
    }
}
