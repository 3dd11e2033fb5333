//! Objects for a disconnected PlatformOperator install: the phase 0 manager reads only
//! `openshift-marketplace/redhat-operators` (`reference/platform-operators.md` §0), so when the
//! catalog names its mirrored index (`image:`), an `OperatorHub` `cluster` disables the default
//! `redhat-operators` source and a `CatalogSource` of that name points at the mirror.

use serde_json::json;

use super::{Error, RenderedObject, Templates};

/// The operator name the shared marketplace objects are filed under (`99_po_<this>_…`).
pub const MARKETPLACE: &str = "openshift-marketplace";

/// `OperatorHub` `cluster` and `CatalogSource` `redhat-operators` for a mirrored catalog image.
pub fn marketplace_objects(
    templates: &Templates,
    catalog_name: &str,
    image: &str,
) -> Result<Vec<RenderedObject>, Error> {
    let hub = json!({"hub": {"disable_all": false, "disabled": ["redhat-operators"]}});
    let source = json!({
        "catalog": {"name": catalog_name},
        "source": {
            "name": "redhat-operators",
            "image": image,
            "display_name": "Red Hat Operators (mirror)",
            "publisher": "Red Hat",
            "priority": 0,
            "pod_config": null,
        },
    });
    Ok(vec![
        templates.render("operatorhub.yaml.j2", MARKETPLACE, &hub)?,
        templates.render("catalogsource.yaml.j2", MARKETPLACE, &source)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disables_the_default_source_and_points_at_the_mirror() {
        let t = Templates::load(None).unwrap();
        let o =
            marketplace_objects(&t, "redhat-operators", "mirror.local/rh/index@sha256:ab").unwrap();
        assert_eq!(o[0].kind(), "OperatorHub");
        assert_eq!(o[0].name(), "cluster");
        assert_eq!(
            o[0].object.pointer("/spec/sources/0"),
            Some(&json!({"name": "redhat-operators", "disabled": true}))
        );
        assert_eq!(o[1].kind(), "CatalogSource");
        assert_eq!(o[1].name(), "redhat-operators");
        assert_eq!(o[1].namespace(), Some("openshift-marketplace"));
        assert_eq!(
            o[1].object.pointer("/spec/image"),
            Some(&json!("mirror.local/rh/index@sha256:ab"))
        );
        assert_eq!(
            o[1].object.pointer("/spec/sourceType"),
            Some(&json!("grpc"))
        );
    }
}
