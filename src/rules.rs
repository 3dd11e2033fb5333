//! The rule table: every rule `check` and `create` apply, as data. Each rule has an id (what a
//! waiver names), a severity, the role it applies to, the fact it enforces, and the source of
//! that fact upstream.
//!
//! The table is a bottom layer that imports nothing of the crate, because two layers read it:
//! [`crate::config`] checks that a `waive:` entry names a rule and reads `role:` as a [`Role`],
//! and [`crate::check`] applies the rules.
use serde::Serialize;

/// How bad a problem is: an error refuses `create` and makes `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The install would not come up (or would silently lose an object).
    Error,
    /// Worth fixing; the install can come up.
    Warning,
    /// What the check saw and did (a document split, a role recognised): nothing to fix.
    Note,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// What a bootstrap operator is, as the configuration's `role:` says (or `check --role`, or the
/// `po-manifests.openshift.io/role` label on its workloads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A cloud controller manager: runs before the network, on uninitialised, not-ready nodes.
    CloudControllerManager,
    /// Machine API controllers: run on the control plane once it is up.
    MachineApi,
    /// Anything else: only the general rules apply.
    #[default]
    Other,
}

impl Role {
    /// Parse `cloud-controller-manager`, `machine-api` or `other`.
    pub fn parse(text: &str) -> Result<Role, String> {
        match text {
            "cloud-controller-manager" => Ok(Role::CloudControllerManager),
            "machine-api" => Ok(Role::MachineApi),
            "other" => Ok(Role::Other),
            _ => Err(format!(
                "unknown role \"{text}\": expected cloud-controller-manager, machine-api or other"
            )),
        }
    }

    /// The role as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::CloudControllerManager => "cloud-controller-manager",
            Role::MachineApi => "machine-api",
            Role::Other => "other",
        }
    }
}

/// Which installer reads the install directory: it decides which files are read and how a
/// file becomes objects (`check --installer`, `create --installer`, config `installer:`).
///
/// - `openshift-install` reads `manifests/` and `openshift/` `*.yaml`, `*.yml` and `*.json`
///   (case-sensitive globs; openshift/installer `pkg/asset/manifests/operators.go`,
///   `openshift.go`), and cluster-bootstrap creates the first YAML document of each file only.
/// - `agent` (the Agent-based installer) embeds `openshift/*.yaml` and `openshift/*.yml` only
///   (openshift/installer `pkg/asset/agent/manifests/extramanifests.go`), each document
///   re-serialized into `/etc/assisted/extra-manifests/NAME-N.EXT` (`pkg/asset/agent/image/
///   ignition.go`, `addExtraManifests`), and registers those with assisted-service as custom
///   manifests of the `openshift` folder (assisted-service `cmd/agentbasedinstaller/register.go`,
///   `RegisterExtraManifests`).
/// - `assisted` (the Assisted Installer): the `manifests/` and `openshift/` folders uploaded as
///   custom manifests; assisted-service splits every multi-document `.yaml`/`.yml` file into one
///   file per non-empty document before running the installer (`internal/ignition/
///   installmanifests.go`, `expandMultiDocYaml`; PR #5480).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Installer {
    /// `openshift-install` (IPI and UPI): the first document of each file.
    #[default]
    OpenshiftInstall,
    /// The Agent-based installer: `openshift/*.yaml|yml`, split by assisted-service.
    Agent,
    /// The Assisted Installer: custom manifests, split by assisted-service.
    Assisted,
}

impl Installer {
    /// Every installer, as written.
    pub const NAMES: [&'static str; 3] = ["openshift-install", "agent", "assisted"];

    /// Parse `openshift-install`, `agent` or `assisted`.
    pub fn parse(text: &str) -> Result<Installer, String> {
        match text {
            "openshift-install" => Ok(Installer::OpenshiftInstall),
            "agent" => Ok(Installer::Agent),
            "assisted" => Ok(Installer::Assisted),
            _ => Err(format!(
                "unknown installer \"{text}\": expected openshift-install, agent or assisted"
            )),
        }
    }

    /// The installer as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Installer::OpenshiftInstall => "openshift-install",
            Installer::Agent => "agent",
            Installer::Assisted => "assisted",
        }
    }

    /// Whether multi-document YAML files are split into one object per document before the
    /// install (assisted-service does it for the Agent-based and the Assisted Installer).
    pub fn splits_documents(self) -> bool {
        self != Installer::OpenshiftInstall
    }
}

impl std::fmt::Display for Installer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which objects a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Applies {
    /// Every file and object.
    All,
    /// install-config together with the set.
    InstallConfig,
    /// Workloads of this role.
    Role(Role),
}

/// One rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The id problems and waivers name.
    pub id: &'static str,
    /// How bad a breach is.
    pub severity: Severity,
    /// What it looks at.
    pub applies: Applies,
    /// The fact it enforces.
    pub fact: &'static str,
    /// Where the fact comes from upstream.
    pub source: &'static str,
}

use Applies::{All, InstallConfig};
use Role::{CloudControllerManager as Ccm, MachineApi as Mapi};
use Severity::{Error, Note, Warning};

const BOOTSTRAP: &str = "openshift/cluster-bootstrap pkg/start/start.go and vendored library-go pkg/assets/create/creater.go";
const OLM_V0: &str = "openshift/operator-framework-olm staging/operator-lifecycle-manager pkg/controller/registry/resolver/step_resolver.go (ResolveSteps), pkg/controller/operators/catalog/operator.go (syncResolvingNamespace), pkg/controller/operators/olm/operatorgroup.go";
const CCCMO_TEST: &str = "openshift/cluster-cloud-controller-manager-operator pkg/cloud/cloud_test.go (checkResourceRunsBeforeCNI)";
const ONBOARDING: &str =
    "openshift/infrastructure-provider-onboarding-guide docs/platform-external/installing.md";

/// Every rule, in the order the guide (`docs/guide.md`) lists them.
pub const RULES: &[Rule] = &[
    // Files, as the installer and cluster-bootstrap read them.
    Rule {
        id: "file-type",
        severity: Error,
        applies: All,
        fact: "assisted-service refuses to upload a custom manifest whose extension is not exactly .yaml, .yml, .json or .patch*",
        source: "openshift/assisted-service internal/manifests/manifests.go (validateUserSuppliedManifest)",
    },
    Rule {
        id: "file-ignored",
        severity: Warning,
        applies: All,
        fact: "openshift-install reads only manifests/ and openshift/ *.yaml, *.yml and *.json (case-sensitive globs), the Agent-based installer only openshift/*.yaml and *.yml; any other file or folder is left out silently and never applied",
        source: "openshift/installer pkg/asset/manifests/operators.go (Manifests.Load), pkg/asset/manifests/openshift.go (Openshift.Load), pkg/asset/agent/manifests/extramanifests.go (ExtraManifests.Load)",
    },
    Rule {
        id: "subdirectory",
        severity: Error,
        applies: All,
        fact: "a folder named like a manifest (x.yaml/) matches openshift-install's glob and os.ReadFile fails on it, failing the ignition assets; assisted-service refuses a name with a folder in it",
        source: "openshift/installer pkg/asset/store/filefetcher.go (FetchByPattern); openshift/assisted-service validateManifestFileNames",
    },
    Rule {
        id: "dotfile",
        severity: Error,
        applies: All,
        fact: "a dotfile matches manifests/* too and must decode like any other manifest",
        source: "openshift/installer pkg/asset/store/filefetcher.go; assisted-service validateManifestFileNames",
    },
    Rule {
        id: "unreadable",
        severity: Error,
        applies: All,
        fact: "an entry that is not a regular file inside the install directory (a FIFO, a device, a socket, a symbolic link leaving the directory, a name that is not UTF-8) cannot be checked, and is never read or followed",
        source: "po-manifests (issue 26); openshift/installer pkg/asset/store/filefetcher.go reads each entry with os.ReadFile",
    },
    Rule {
        id: "file-name",
        severity: Error,
        applies: All,
        fact: "assisted-service refuses a custom manifest whose name has a space or does not match its file_name pattern (.json, .yaml, .yml, .yaml.patch*)",
        source: "openshift/assisted-service internal/manifests/manifests.go (validateManifestFileNames); swagger.yaml create-manifest-params",
    },
    Rule {
        id: "file-size",
        severity: Error,
        applies: All,
        fact: "a manifest of more than 1 MiB does not fit an etcd request with room to spare (assisted-service refuses it)",
        source: "openshift/assisted-service internal/manifests (1 MiB limit)",
    },
    Rule {
        id: "decode",
        severity: Error,
        applies: All,
        fact: "a file that does not decode as a YAML or JSON mapping aborts manifest creation, and bootstrap never completes",
        source: BOOTSTRAP,
    },
    Rule {
        id: "type-meta",
        severity: Error,
        applies: All,
        fact: "every object needs apiVersion, kind and metadata.name to be created",
        source: BOOTSTRAP,
    },
    Rule {
        id: "list-kind",
        severity: Error,
        applies: All,
        fact: "cluster-bootstrap creates one object per file; a List is not expanded",
        source: BOOTSTRAP,
    },
    Rule {
        id: "one-object-per-file",
        severity: Error,
        applies: All,
        fact: "cluster-bootstrap decodes only the first YAML document of a file; the others are dropped silently (with --installer agent or assisted a note: assisted-service splits the file into one file per document)",
        source: "openshift/cluster-bootstrap pkg/start/start.go and vendored library-go pkg/assets/create/creater.go; openshift/assisted-service internal/ignition/installmanifests.go (expandMultiDocYaml)",
    },
    Rule {
        id: "reserialized-number",
        severity: Error,
        applies: All,
        fact: "the Agent-based installer decodes each extra manifest into map[string]interface{} through encoding/json and marshals it again: every number becomes a float64, so an integer past 2^53 lands rounded",
        source: "openshift/installer pkg/asset/agent/image/ignition.go (addExtraManifests), pkg/asset/agent/manifests GetMultipleYamls (apimachinery YAMLToJSONDecoder)",
    },
    Rule {
        id: "name-clash",
        severity: Error,
        applies: All,
        fact: "bootkube.sh copies openshift/* over manifests/ and the installer owns some file names: a file of the same name replaces the other",
        source: "openshift/installer data/data/bootstrap/files/usr/local/bin/bootkube.sh.template; pkg/asset/manifests/openshift.go",
    },
    Rule {
        id: "name-invalid",
        severity: Error,
        applies: All,
        fact: "the API server validates every metadata.name for its kind (a DNS-1123 label for a Namespace, a DNS-1035 label for a Service, a path segment for RBAC kinds, a DNS-1123 subdomain of at most 253 characters for the rest) and every metadata.namespace as a DNS-1123 label: cluster-bootstrap retries a refused object until the 60-minute timeout",
        source: "kubernetes pkg/apis/core/validation/validation.go (ValidateObjectMeta, ValidateNamespaceName, ValidateServiceName), pkg/apis/rbac/validation/validation.go (ValidateRBACName), apimachinery pkg/util/validation/validation.go",
    },
    Rule {
        id: "duplicate-object",
        severity: Error,
        applies: All,
        fact: "objects are create-only: when two files define one object differently, the first in path order wins and the other is never applied",
        source: BOOTSTRAP,
    },
    Rule {
        id: "duplicate-identical",
        severity: Warning,
        applies: All,
        fact: "two files define the same object with the same content; only the first is created",
        source: BOOTSTRAP,
    },
    Rule {
        id: "namespace-missing",
        severity: Error,
        applies: All,
        fact: "an object in a namespace that nothing creates is retried until the 60-minute timeout and blocks bootstrap-complete",
        source: BOOTSTRAP,
    },
    Rule {
        id: "namespace-unset",
        severity: Error,
        applies: All,
        fact: "a namespaced object without metadata.namespace cannot be created by cluster-bootstrap",
        source: BOOTSTRAP,
    },
    Rule {
        id: "subscription-source",
        severity: Error,
        applies: All,
        fact: "a Subscription resolves only from an existing CatalogSource in its own namespace or in openshift-marketplace; otherwise OLM v0 installs nothing for it",
        source: OLM_V0,
    },
    Rule {
        id: "operatorgroup-count",
        severity: Error,
        applies: All,
        fact: "a namespace with Subscriptions needs exactly one OperatorGroup, counting OpenShift's global-operators in openshift-operators; with none or several, nothing resolves there",
        source: OLM_V0,
    },
    Rule {
        id: "operatorgroup-targets",
        severity: Error,
        applies: All,
        fact: "an OperatorGroup's targetNamespaces may not hold an empty name",
        source: OLM_V0,
    },
    Rule {
        id: "subscription-manual",
        severity: Warning,
        applies: All,
        fact: "with installPlanApproval Manual nothing installs until an InstallPlan is approved, and every InstallPlan of the namespace becomes Manual",
        source: OLM_V0,
    },
    Rule {
        id: "crd-missing",
        severity: Error,
        applies: All,
        fact: "a custom resource whose CRD neither the set nor the release provides is retried until the 60-minute timeout",
        source: BOOTSTRAP,
    },
    Rule {
        id: "crd-version",
        severity: Error,
        applies: All,
        fact: "a custom resource must use a version its CRD serves",
        source: "kubernetes apiextensions-apiserver (served versions)",
    },
    Rule {
        id: "cr-schema",
        severity: Error,
        applies: All,
        fact: "a custom resource that fails its CRD's openAPIV3Schema (required fields, types, enums) is refused on every retry",
        source: "kubernetes apiextensions-apiserver pkg/apiserver/validation",
    },
    Rule {
        id: "cr-pruned",
        severity: Warning,
        applies: All,
        fact: "fields the CRD's structural schema does not declare are pruned by the API server and silently lost",
        source: "kubernetes apiextensions-apiserver pkg/apiserver/schema/pruning",
    },
    Rule {
        id: "placeholder",
        severity: Error,
        applies: All,
        fact: "an unresolved placeholder (${…}, {{ … }}, $VAR) reaches the cluster as text",
        source: "oracle-quickstart/oci-openshift custom_manifests/manifests/01-oci-driver-configs.yml (placeholder values)",
    },
    Rule {
        id: "image-invalid",
        severity: Error,
        applies: All,
        fact: "an image reference that does not parse cannot be pulled",
        source: "distribution/reference (ParseNormalizedNamed)",
    },
    Rule {
        id: "image-tag",
        severity: Warning,
        applies: All,
        fact: "an image pulled by tag can change under the install; pin it by digest",
        source: "openshift/installer pkg/asset/ignition/bootstrap/common.go (registries.conf)",
    },
    Rule {
        id: "image-tag-disconnected",
        severity: Error,
        applies: All,
        fact: "install-config mirror rules are applied by digest only: an image pulled by tag is never redirected to the mirror",
        source: "openshift/installer pkg/asset/ignition/bootstrap/common.go (mirror-by-digest-only)",
    },
    Rule {
        id: "image-not-mirrored",
        severity: Error,
        applies: All,
        fact: "with mirror rules, an image no rule covers is pulled from its source, which a disconnected cluster cannot reach",
        source: "openshift/installer pkg/asset/manifests/imagedigestmirrorset.go",
    },
    Rule {
        id: "webhook-bootstrap-backend",
        severity: Error,
        applies: All,
        fact: "an admission webhook with failurePolicy Fail whose backend is itself a bootstrap object denies every matching create until that backend runs",
        source: "kubernetes admissionregistration/v1 (failurePolicy defaults to Fail)",
    },
    Rule {
        id: "webhook-ca",
        severity: Error,
        applies: All,
        fact: "a webhook served by a Service needs a caBundle, or the service-ca inject-cabundle annotation (OLM does not inject one for plain manifests)",
        source: "openshift/service-ca-operator (service.beta.openshift.io/inject-cabundle)",
    },
    Rule {
        id: "role-recognised",
        severity: Note,
        applies: All,
        fact: "a workload without a role label is recognised as a cloud controller manager (a *cloud-controller-manager* binary, --cloud-provider or --cloud-config, or its name) or as Machine API controllers (a machine-controller-manager or machine-api binary, --machine-api* flags, its name, or RBAC on machine.openshift.io), and the role's rules apply; --role or the configuration says otherwise",
        source: "openshift/cluster-cloud-controller-manager-operator pkg/cloud/*/assets; openshift/machine-api-operator install/0000_30_machine-api-operator_11_deployment.yaml",
    },
    // install-config against the set.
    Rule {
        id: "ccm-requires-external",
        severity: Error,
        applies: InstallConfig,
        fact: "a cloud controller manager is only used when install-config has platform.external.cloudControllerManager: External; otherwise kubelet runs without --cloud-provider=external",
        source: "openshift/installer pkg/types/external/platform.go",
    },
    Rule {
        id: "external-without-ccm",
        severity: Error,
        applies: InstallConfig,
        fact: "with cloudControllerManager: External nodes register with the node.cloudprovider.kubernetes.io/uninitialized taint, and no OpenShift operator deploys a CCM: the set must",
        source: "openshift/cluster-cloud-controller-manager-operator pkg/controllers/clusteroperator_controller.go (External: do nothing)",
    },
    Rule {
        id: "ccm-value",
        severity: Error,
        applies: InstallConfig,
        fact: "platform.external.cloudControllerManager is \"\" or External; None is the Infrastructure status value, not an install-config one",
        source: "openshift/installer pkg/types/external/platform.go (Enum=\"\";External)",
    },
    Rule {
        id: "platform-name",
        severity: Warning,
        applies: InstallConfig,
        fact: "platform.external.platformName names the provider; it cannot be changed once set",
        source: "openshift/installer pkg/types/external/platform.go",
    },
    Rule {
        id: "provider-id-machineconfig",
        severity: Warning,
        applies: InstallConfig,
        fact: "with an external CCM kubelet needs a valid KUBELET_PROVIDERID: a MachineConfig for both the master and the worker role sets it",
        source: ONBOARDING,
    },
    // Cloud controller managers.
    Rule {
        id: "ccm-tolerate-uninitialized",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "nodes carry node.cloudprovider.kubernetes.io/uninitialized:NoSchedule until the CCM initialises them: the CCM must tolerate it",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-tolerate-not-ready",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "the CCM runs before the CNI makes nodes ready: it must tolerate node.kubernetes.io/not-ready:NoSchedule",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-tolerate-control-plane",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "during bootstrap only control-plane nodes exist and they are tainted NoSchedule: the CCM must tolerate node-role.kubernetes.io/master (or control-plane)",
        source: "openshift/cluster-cloud-controller-manager-operator pkg/cloud/*/assets (master toleration)",
    },
    Rule {
        id: "ccm-host-network",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "there is no pod network before the CCM has run: it must use hostNetwork: true",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-apiserver-url",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "the kubernetes Service does not work before the CNI: every container must source /etc/kubernetes/apiserver-url.env to reach api-int",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-host-kubernetes-volume",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "apiserver-url.env comes from the host: mount hostPath /etc/kubernetes at /etc/kubernetes in every container",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-container-ports",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "with host networking every port a container listens on is a host port and must be declared (CCM 10258, cloud-node-manager 10263)",
        source: "openshift/enhancements dev-guide/host-port-registry.md; CCCMO cloud_test.go checkPorts",
    },
    Rule {
        id: "ccm-termination-message",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "every container sets terminationMessagePolicy: FallbackToLogsOnError so a crash is visible in the pod status",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-recreate",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "a Deployment on host ports needs strategy Recreate: a rolling update cannot start the new pod on the same host port",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-control-plane-selector",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "the CCM belongs on the control plane: nodeSelector node-role.kubernetes.io/master (or control-plane)",
        source: CCCMO_TEST,
    },
    Rule {
        id: "ccm-leader-election",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "in its own namespace the CCM needs --leader-elect-resource-namespace, or it elects in kube-system",
        source: "openshift/assisted-test-infra PR 2200 review; CCCMO cloud_test.go checkLeaderElection",
    },
    Rule {
        id: "ccm-lease-rbac",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "the CCM's ServiceAccount must be allowed to get, create and update coordination.k8s.io leases in its leader-election namespace, or it never leads",
        source: "kubernetes client-go tools/leaderelection",
    },
    Rule {
        id: "ccm-namespace-admission",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "host networking and hostPath need the namespace label openshift.io/run-level: \"0\" (admission skipped) or an SCC granted to the ServiceAccount",
        source: ONBOARDING,
    },
    Rule {
        id: "ccm-workload-management",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "the CCM namespace carries the annotation workload.openshift.io/allowed: management",
        source: ONBOARDING,
    },
    Rule {
        id: "ccm-references",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "every ConfigMap, Secret and ServiceAccount the CCM pod uses must be in the set: nothing else creates them in a partner namespace before the CCM runs (ccm-trusted-ca is only synced into openshift-cloud-controller-manager)",
        source: "openshift/cluster-cloud-controller-manager-operator pkg/controllers/trusted_ca_bundle_controller.go",
    },
    Rule {
        id: "ccm-cloud-config",
        severity: Error,
        applies: Applies::Role(Ccm),
        fact: "the --cloud-config file must be a key of a mounted ConfigMap or Secret",
        source: "oracle-quickstart/oci-openshift issue 81 (config key mismatch)",
    },
    Rule {
        id: "ccm-priority-class",
        severity: Warning,
        applies: Applies::Role(Ccm),
        fact: "the CCM should run at priorityClassName system-cluster-critical (or system-node-critical)",
        source: "openshift/cluster-cloud-controller-manager-operator pkg/cloud/nutanix/assets",
    },
    // Machine API controllers.
    Rule {
        id: "mapi-tolerate-control-plane",
        severity: Error,
        applies: Applies::Role(Mapi),
        fact: "MAO deploys nothing on External: the partner's machine controllers run on the tainted control plane and must tolerate node-role.kubernetes.io/master (or control-plane)",
        source: "openshift/machine-api-operator pkg/operator/config.go (External: no-op)",
    },
    Rule {
        id: "mapi-control-plane-selector",
        severity: Warning,
        applies: Applies::Role(Mapi),
        fact: "machine controllers belong on the control plane: nodeSelector node-role.kubernetes.io/master (or control-plane)",
        source: "openshift/machine-api-operator install/0000_30_machine-api-operator_11_deployment.yaml",
    },
    Rule {
        id: "mapi-crds",
        severity: Error,
        applies: Applies::Role(Mapi),
        fact: "the machine.openshift.io CRDs come from the release only with the MachineAPI capability; otherwise the set must carry them",
        source: "openshift/api machine/v1beta1 (capability.openshift.io/name: MachineAPI)",
    },
    Rule {
        id: "mapi-references",
        severity: Error,
        applies: Applies::Role(Mapi),
        fact: "every ConfigMap, Secret (credentials) and ServiceAccount the controller pod uses must be in the set",
        source: "reference/bootstrap-operators.md section 4 (credentials in the same namespace)",
    },
    Rule {
        id: "mapi-priority-class",
        severity: Warning,
        applies: Applies::Role(Mapi),
        fact: "machine controllers should run at priorityClassName system-cluster-critical",
        source: "openshift/machine-api-operator install manifests",
    },
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len());
        for id in ids {
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id}"
            );
        }
    }

    #[test]
    fn roles_parse_and_print() {
        for r in [Role::CloudControllerManager, Role::MachineApi, Role::Other] {
            assert_eq!(Role::parse(r.as_str()), Ok(r));
        }
        assert!(Role::parse("ccm").is_err());
    }
}

#[cfg(test)]
mod guide {
    #[test]
    fn the_guide_names_every_rule() {
        let guide = include_str!("../docs/guide.md");
        let section = guide
            .split("## For infrastructure partners")
            .nth(1)
            .expect("the guide has the partners section");
        for r in super::RULES {
            let listed = section.contains(&format!("`{}`", r.id))
                || (r.id.starts_with("ccm-") && section.contains("every `ccm-*` rule"))
                || (r.id.starts_with("mapi-") && section.contains("every `mapi-*` rule"));
            assert!(listed, "docs/guide.md does not name rule {}", r.id);
        }
    }
}
