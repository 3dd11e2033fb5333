//! What the installers write alone (issue 33): directories shaped like openshift-install's own
//! `create manifests` output and the Agent-based installer's `create cluster-manifests` output,
//! for each platform and installer `check` knows, written here from small templates of ours
//! (never upstream files). `check` must find nothing in them: a finding there is a false alarm
//! on every install of that shape.

use std::path::Path;

use base64::Engine as _;
use serde_json::Value;

use crate::common::cmd;

/// The platforms the fixtures cover, with the machine manifests openshift-install writes for
/// each (none for `none` and `external`: the user brings the machines).
const PLATFORMS: &[&str] = &["none", "external", "baremetal", "vsphere", "aws"];

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A bcrypt hash of the shape `golang.org/x/crypto/bcrypt` writes (`$2a$10$` and 53 characters
/// of its alphabet), drawn from `seed`: salts starting with two capitals, the case issue 33
/// saw read as a placeholder, come up about one run in three.
fn bcrypt_like(seed: u64) -> String {
    const ALPHABET: &[u8] = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::from("$2a$10$");
    for _ in 0..53 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push(ALPHABET[(x % ALPHABET.len() as u64) as usize] as char);
    }
    out
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn secret(ns: &str, name: &str, data: &[(&str, String)]) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: {ns}\ntype: Opaque\ndata:\n"
    );
    for (k, v) in data {
        text.push_str(&format!("  {k}: {v}\n"));
    }
    text
}

fn install_config(platform: &str) -> String {
    let settings = match platform {
        "external" => "\n    platformName: acme",
        "baremetal" => "\n    apiVIPs: [192.0.2.5]\n    ingressVIPs: [192.0.2.6]",
        "vsphere" => {
            "\n    vcenters:\n    - server: vcenter.example.com\n      user: \"\"\n      password: \"\""
        }
        "aws" => "\n    region: us-east-1",
        _ => " {}",
    };
    format!(
        "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: acme\nnetworking:\n  networkType: OVNKubernetes\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - 172.30.0.0/16\nplatform:\n  {platform}:{settings}\npullSecret: \"\"\nsshKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcme acme@example.com\n"
    )
}

/// `openshift-install create manifests` for `platform`, installer version `version`.
fn openshift_install_output(dir: &Path, platform: &str, version: &str, seed: u64) {
    let indent = |t: &str| t.lines().map(|l| format!("    {l}\n")).collect::<String>();
    write(
        dir,
        "manifests/cluster-config.yaml",
        &format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\ndata:\n  install-config: |\n{}",
            indent(&install_config(platform))
        ),
    );
    let infra_type = match platform {
        "none" => "None",
        "external" => "External",
        "baremetal" => "BareMetal",
        "vsphere" => "VSphere",
        _ => "AWS",
    };
    write(
        dir,
        "manifests/cluster-infrastructure-02-config.yml",
        &format!(
            "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  cloudConfig:\n    name: \"\"\n  platformSpec:\n    type: {infra_type}\nstatus:\n  apiServerInternalURI: https://api-int.acme.example.com:6443\n  apiServerURL: https://api.acme.example.com:6443\n  controlPlaneTopology: HighlyAvailable\n  infrastructureName: acme-x7k2p\n  platform: {infra_type}\n"
        ),
    );
    write(
        dir,
        "manifests/cluster-dns-02-config.yml",
        "apiVersion: config.openshift.io/v1\nkind: DNS\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  baseDomain: acme.example.com\nstatus: {}\n",
    );
    write(
        dir,
        "manifests/cluster-ingress-02-config.yml",
        "apiVersion: config.openshift.io/v1\nkind: Ingress\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  domain: apps.acme.example.com\nstatus: {}\n",
    );
    write(
        dir,
        "manifests/cluster-network-02-config.yml",
        "apiVersion: config.openshift.io/v1\nkind: Network\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  externalIP:\n    policy: {}\n  networkType: OVNKubernetes\n  serviceNetwork:\n  - 172.30.0.0/16\nstatus: {}\n",
    );
    write(
        dir,
        "manifests/cluster-proxy-01-config.yaml",
        "apiVersion: config.openshift.io/v1\nkind: Proxy\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  trustedCA:\n    name: \"\"\nstatus: {}\n",
    );
    write(
        dir,
        "manifests/cluster-scheduler-02-config.yml",
        "apiVersion: config.openshift.io/v1\nkind: Scheduler\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  mastersSchedulable: false\n  policy:\n    name: \"\"\nstatus: {}\n",
    );
    let minor = version.split('.').take(2).collect::<Vec<_>>().join(".");
    write(
        dir,
        "manifests/cvo-overrides.yaml",
        &format!(
            "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\n  namespace: openshift-cluster-version\nspec:\n  channel: stable-{minor}\n  clusterID: 0b8f3c1e-4d5a-4e7b-9c2d-1a2b3c4d5e6f\n"
        ),
    );
    write(
        dir,
        "manifests/kube-cloud-config.yaml",
        &secret("kube-system", "kube-cloud-cfg", &[("config", b64(""))]),
    );
    write(
        dir,
        "manifests/kube-system-configmap-root-ca.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: root-ca\n  namespace: kube-system\ndata:\n  ca.crt: |\n    -----BEGIN CERTIFICATE-----\n    MIIDEzCCAfugAwIBAgIIc3Rfb3JkZXIwDQYJKoZIhvcNAQELBQAwJjESMBAGA1UE\n    -----END CERTIFICATE-----\n",
    );
    write(
        dir,
        "manifests/machine-config-server-tls-secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: machine-config-server-tls\n  namespace: openshift-machine-config-operator\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURXakNDQWtLZ0F3SUJBZ0lJ\n  tls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB\n",
    );
    write(
        dir,
        "manifests/openshift-config-secret-pull-secret.yaml",
        &format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull-secret\n  namespace: openshift-config\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {}\n",
            b64(
                "{\"auths\":{\"quay.io\":{\"auth\":\"YWNtZTpzM2NyZXQ=\",\"email\":\"acme@example.com\"}}}"
            )
        ),
    );
    write(
        dir,
        "manifests/04-openshift-machine-config-operator.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n    openshift.io/node-selector: \"\"\n  name: openshift-machine-config-operator\n",
    );
    write(
        dir,
        "manifests/openshift-kubevirt-infra-namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-kubevirt-infra\n",
    );
    // openshift/
    write(
        dir,
        "openshift/99_feature-gate.yaml",
        "apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec: {}\nstatus:\n  featureGates: null\n",
    );
    write(
        dir,
        "openshift/99_kubeadmin-password-secret.yaml",
        &secret(
            "kube-system",
            "kubeadmin",
            &[("kubeadmin", b64(&bcrypt_like(seed)))],
        ),
    );
    write(
        dir,
        "openshift/openshift-install-manifests.yaml",
        &format!(
            "apiVersion: v1\ndata:\n  invoker: user\n  version: v{version}\nkind: ConfigMap\nmetadata:\n  creationTimestamp: null\n  name: openshift-install-manifests\n  namespace: openshift-config\n"
        ),
    );
    let ignition = |role: &str| {
        b64(&format!(
            "{{\"ignition\":{{\"config\":{{\"merge\":[{{\"source\":\"https://api-int.acme.example.com:22623/config/{role}\"}}]}},\"security\":{{\"tls\":{{\"certificateAuthorities\":[{{\"source\":\"data:text/plain;charset=utf-8;base64,{}\"}}]}}}},\"version\":\"3.2.0\"}}}}",
            b64("-----BEGIN CERTIFICATE-----\n")
        ))
    };
    for role in ["master", "worker"] {
        write(
            dir,
            &format!("openshift/99_openshift-cluster-api_{role}-user-data-secret.yaml"),
            &secret(
                "openshift-machine-api",
                &format!("{role}-user-data"),
                &[
                    ("disableTemplating", b64("true")),
                    ("userData", ignition(role)),
                ],
            ),
        );
        write(
            dir,
            &format!("openshift/99_openshift-machineconfig_99-{role}-ssh.yaml"),
            &format!(
                "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  creationTimestamp: null\n  labels:\n    machineconfiguration.openshift.io/role: {role}\n  name: 99-{role}-ssh\nspec:\n  config:\n    ignition:\n      version: 3.2.0\n    passwd:\n      users:\n      - name: core\n        sshAuthorizedKeys:\n        - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcme acme@example.com\n  extensions: null\n  fips: false\n  kernelArguments: null\n  kernelType: \"\"\n  osImageURL: \"\"\n"
            ),
        );
    }
    let provider = match platform {
        "aws" => {
            "      ami:\n        id: ami-0a1b2c3d4e5f67890\n      apiVersion: machine.openshift.io/v1beta1\n      instanceType: m6i.xlarge\n      kind: AWSMachineProviderConfig\n      placement:\n        availabilityZone: us-east-1a\n        region: us-east-1\n      userDataSecret:\n        name: master-user-data\n"
        }
        "vsphere" => {
            "      apiVersion: machine.openshift.io/v1beta1\n      kind: VSphereMachineProviderSpec\n      numCPUs: 4\n      memoryMiB: 16384\n      template: acme-x7k2p-rhcos\n      userDataSecret:\n        name: master-user-data\n      workspace:\n        datacenter: dc1\n        server: vcenter.example.com\n"
        }
        "baremetal" => {
            "      apiVersion: baremetal.cluster.k8s.io/v1alpha1\n      customDeploy:\n        method: install_coreos\n      hostSelector: {}\n      image:\n        checksum: \"\"\n        url: \"\"\n      kind: BareMetalMachineProviderSpec\n      userData:\n        name: master-user-data-managed\n"
        }
        _ => return,
    };
    for i in 0..3 {
        write(
            dir,
            &format!("openshift/99_openshift-cluster-api_master-machines-{i}.yaml"),
            &format!(
                "apiVersion: machine.openshift.io/v1beta1\nkind: Machine\nmetadata:\n  creationTimestamp: null\n  labels:\n    machine.openshift.io/cluster-api-cluster: acme-x7k2p\n    machine.openshift.io/cluster-api-machine-role: master\n    machine.openshift.io/cluster-api-machine-type: master\n  name: acme-x7k2p-master-{i}\n  namespace: openshift-machine-api\nspec:\n  lifecycleHooks: {{}}\n  metadata: {{}}\n  providerSpec:\n    value:\n{provider}status: {{}}\n"
            ),
        );
    }
    write(
        dir,
        "openshift/99_openshift-cluster-api_worker-machineset-0.yaml",
        &format!(
            "apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  creationTimestamp: null\n  labels:\n    machine.openshift.io/cluster-api-cluster: acme-x7k2p\n  name: acme-x7k2p-worker-0\n  namespace: openshift-machine-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      machine.openshift.io/cluster-api-cluster: acme-x7k2p\n      machine.openshift.io/cluster-api-machineset: acme-x7k2p-worker-0\n  template:\n    metadata:\n      labels:\n        machine.openshift.io/cluster-api-cluster: acme-x7k2p\n        machine.openshift.io/cluster-api-machine-role: worker\n        machine.openshift.io/cluster-api-machine-type: worker\n        machine.openshift.io/cluster-api-machineset: acme-x7k2p-worker-0\n    spec:\n      lifecycleHooks: {{}}\n      metadata: {{}}\n      providerSpec:\n        value:\n{}status:\n  replicas: 0\n",
            provider
                .replace("master-user-data", "worker-user-data")
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>()
        ),
    );
    write(
        dir,
        "openshift/99_openshift-machine-api_master-control-plane-machine-set.yaml",
        &format!(
            "apiVersion: machine.openshift.io/v1\nkind: ControlPlaneMachineSet\nmetadata:\n  creationTimestamp: null\n  labels:\n    machine.openshift.io/cluster-api-cluster: acme-x7k2p\n  name: cluster\n  namespace: openshift-machine-api\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      machine.openshift.io/cluster-api-cluster: acme-x7k2p\n      machine.openshift.io/cluster-api-machine-role: master\n      machine.openshift.io/cluster-api-machine-type: master\n  state: Active\n  strategy: {{}}\n  template:\n    machineType: machines_v1beta1_machine_openshift_io\n    machines_v1beta1_machine_openshift_io:\n      failureDomains:\n        platform: \"\"\n      metadata:\n        labels:\n          machine.openshift.io/cluster-api-cluster: acme-x7k2p\n          machine.openshift.io/cluster-api-machine-role: master\n          machine.openshift.io/cluster-api-machine-type: master\n      spec:\n        lifecycleHooks: {{}}\n        metadata: {{}}\n        providerSpec:\n          value:\n{}status: {{}}\n",
            provider
                .lines()
                .map(|l| format!("      {l}\n"))
                .collect::<String>()
        ),
    );
    match platform {
        "baremetal" => {
            write(
                dir,
                "openshift/99_baremetal-provisioning-config.yaml",
                "apiVersion: metal3.io/v1alpha1\nkind: Provisioning\nmetadata:\n  name: provisioning-configuration\nspec:\n  provisioningNetwork: Disabled\n  provisioningOSDownloadURL: https://rhcos.example.com/rhcos-openstack.x86_64.qcow2.gz?sha256=0a1b2c\n",
            );
            for i in 0..3 {
                write(
                    dir,
                    &format!("openshift/99_openshift-cluster-api_host-bmc-secrets-{i}.yaml"),
                    &secret(
                        "openshift-machine-api",
                        &format!("acme-master-{i}-bmc-secret"),
                        &[("password", b64("s3cret$PW")), ("username", b64("admin"))],
                    ),
                );
                write(
                    dir,
                    &format!("openshift/99_openshift-cluster-api_hosts-{i}.yaml"),
                    &format!(
                        "apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  annotations:\n    baremetalhost.metal3.io/status: '{{\"errorMessage\":\"\",\"hardware\":{{}}}}'\n  creationTimestamp: null\n  name: acme-master-{i}\n  namespace: openshift-machine-api\nspec:\n  architecture: x86_64\n  bmc:\n    address: redfish-virtualmedia://192.0.2.{}/redfish/v1/Systems/1\n    credentialsName: acme-master-{i}-bmc-secret\n  bootMACAddress: 52:54:00:00:00:0{i}\n  bootMode: UEFI\n  externallyProvisioned: true\n  online: true\nstatus:\n  errorCount: 0\n  errorMessage: \"\"\n  hardwareProfile: \"\"\n  operationalStatus: \"\"\n  poweredOn: false\n  provisioning:\n    ID: \"\"\n    bootMode: UEFI\n    image:\n      url: \"\"\n    state: \"\"\n",
                        10 + i
                    ),
                );
            }
        }
        "vsphere" | "aws" => {
            let creds = if platform == "aws" {
                "aws-creds"
            } else {
                "vsphere-creds"
            };
            let data = if platform == "aws" {
                vec![
                    ("aws_access_key_id", b64("AKIAACMEEXAMPLE")),
                    (
                        "aws_secret_access_key",
                        b64("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                    ),
                ]
            } else {
                vec![
                    (
                        "vcenter.example.com.username",
                        b64("administrator@vsphere.local"),
                    ),
                    ("vcenter.example.com.password", b64("P@ss$WORD")),
                ]
            };
            write(
                dir,
                "openshift/99_cloud-creds-secret.yaml",
                &secret("kube-system", creds, &data),
            );
            write(
                dir,
                "openshift/99_role-cloud-creds-secret-reader.yaml",
                &format!(
                    "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {creds}-secret-reader\n  namespace: kube-system\nrules:\n- apiGroups:\n  - \"\"\n  resourceNames:\n  - {creds}\n  resources:\n  - secrets\n  verbs:\n  - get\n"
                ),
            );
            write(
                dir,
                "manifests/cloud-provider-config.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cloud-provider-config\n  namespace: openshift-config\ndata:\n  config: |\n    [Global]\n",
            );
        }
        _ => {}
    }
}

/// `openshift-install agent create cluster-manifests`: `cluster-manifests/`, no manifests.
fn agent_output(dir: &Path, platform: &str, version: &str) {
    let platform_type = match platform {
        "external" => "External",
        "baremetal" => "BareMetal",
        "vsphere" => "VSphere",
        _ => "None",
    };
    let external = if platform == "external" {
        "  externalPlatformSpec:\n    platformName: acme\n"
    } else {
        ""
    };
    write(
        dir,
        "cluster-manifests/agent-cluster-install.yaml",
        &format!(
            "apiVersion: extensions.hive.openshift.io/v1beta1\nkind: AgentClusterInstall\nmetadata:\n  name: acme\n  namespace: cluster0\nspec:\n  clusterDeploymentRef:\n    name: acme\n  imageSetRef:\n    name: openshift-{version}\n  networking:\n    clusterNetwork:\n    - cidr: 10.128.0.0/14\n      hostPrefix: 23\n    networkType: OVNKubernetes\n    serviceNetwork:\n    - 172.30.0.0/16\n  platformType: {platform_type}\n{external}  provisionRequirements:\n    controlPlaneAgents: 3\n    workerAgents: 2\n  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcme acme@example.com\n"
        ),
    );
    write(
        dir,
        "cluster-manifests/cluster-image-set.yaml",
        &format!(
            "apiVersion: hive.openshift.io/v1\nkind: ClusterImageSet\nmetadata:\n  name: openshift-{version}\nspec:\n  releaseImage: quay.io/openshift-release-dev/ocp-release:{version}-x86_64\n"
        ),
    );
    write(
        dir,
        "cluster-manifests/pull-secret.yaml",
        &format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: acme-pull-secret\n  namespace: cluster0\nstringData:\n  .dockerconfigjson: '{{\"auths\":{{\"quay.io\":{{\"auth\":\"{}\"}}}}}}'\n",
            b64("acme:s3cret")
        ),
    );
}

fn check(dir: &Path, installer: &str) -> (Option<i32>, Value, String) {
    let out = cmd()
        .arg("check")
        .arg("--dir")
        .arg(dir)
        .args(["--installer", installer, "-o", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (
        out.status.code(),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every platform, every installer, several fresh kubeadmin hashes: nothing found (issue 33
/// item 2), and the target release read from the installer's own files (item 7).
#[test]
fn check_finds_nothing_in_what_the_installers_write_alone() {
    for platform in PLATFORMS {
        for (seed, version) in [
            (1u64, "4.15.3"),
            (2, "4.15.3"),
            (3, "4.18.1"),
            (4, "4.20.2"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            openshift_install_output(dir.path(), platform, version, seed);
            for installer in ["openshift-install", "assisted"] {
                let (code, report, stderr) = check(dir.path(), installer);
                assert_eq!(
                    report["problems"],
                    Value::Array(vec![]),
                    "{platform} {version} {installer}: {report:#}\n{stderr}"
                );
                assert_eq!(code, Some(0), "{stderr}");
                let notes = report["notes"].to_string();
                assert!(
                    notes.contains(&format!("target release {version}")),
                    "{notes}"
                );
                assert!(!notes.contains("no target release"), "{notes}");
            }
            let agent = tempfile::tempdir().unwrap();
            agent_output(agent.path(), platform, version);
            let (code, report, stderr) = check(agent.path(), "agent");
            assert_eq!(
                report["problems"],
                Value::Array(vec![]),
                "{platform} agent: {report:#}\n{stderr}"
            );
            assert_eq!(code, Some(0));
            assert!(
                report["notes"]
                    .to_string()
                    .contains("cluster-manifests/cluster-image-set.yaml"),
                "{report:#}"
            );
        }
    }
}

/// A hash of the installer's kubeadmin secret is never a placeholder, whatever its salt: many
/// seeds, so salts starting with capitals (`$2a$10$PKQ3…`) come up.
#[test]
fn no_kubeadmin_hash_is_a_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    openshift_install_output(dir.path(), "none", "4.15.3", 0);
    let path = dir
        .path()
        .join("openshift/99_kubeadmin-password-secret.yaml");
    let mut capitals = 0;
    for seed in 0..48 {
        let hash = bcrypt_like(seed);
        if hash.as_bytes()[7].is_ascii_uppercase() && hash.as_bytes()[8].is_ascii_uppercase() {
            capitals += 1;
        }
        std::fs::write(
            &path,
            secret("kube-system", "kubeadmin", &[("kubeadmin", b64(&hash))]),
        )
        .unwrap();
        let (_, report, _) = check(dir.path(), "openshift-install");
        assert_eq!(
            report["problems"],
            Value::Array(vec![]),
            "{hash}: {report:#}"
        );
    }
    assert!(
        capitals >= 3,
        "the seeds drew {capitals} salts starting with two capitals"
    );
}

/// The Agent-based installer of 4.14 carries no featureSet (issue 33 item 5): a TechPreview
/// install for it is refused before anything is written, naming why.
#[test]
fn an_agent_install_whose_feature_set_never_reaches_the_cluster_is_refused() {
    let dir = crate::common::example();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir.path())
        .args(["--installer", "agent"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("does not carry featureSet") && stderr.contains("4.20"),
        "{stderr}"
    );
    let written = std::fs::read_dir(dir.path().join("openshift"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("99_po_")
        })
        .count();
    assert_eq!(written, 0);
}

/// What the Agent-based installer re-serializes is what the lock and `check` describe (issue
/// 33 item 4): each file lands as `NAME-0.yaml` with the digest of its object; a document of
/// comments only lands as `{}`, an integer past 2^53 lands rounded.
#[test]
fn the_lock_and_check_describe_what_the_agent_lands() {
    let dir = crate::common::agent_example();
    let d = dir.path();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d)
        .args(["--installer", "agent"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lock: Value = serde_json::to_value(
        serde_saphyr::from_str::<serde_json::Value>(
            &std::fs::read_to_string(d.join("platform-operators.lock.yaml")).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let manifests = lock["manifests"].as_array().unwrap();
    assert!(!manifests.is_empty());
    for m in manifests {
        let name = m["name"].as_str().unwrap();
        let lands = m["lands"].as_array().unwrap_or_else(|| panic!("{m:#}"));
        assert_eq!(lands.len(), 1, "{m:#}");
        assert_eq!(lands[0]["name"], name.replace(".yaml", "-0.yaml"));
        let object: Value = serde_saphyr::from_str(
            &std::fs::read_to_string(d.join("openshift").join(name)).unwrap(),
        )
        .unwrap();
        assert_eq!(
            lands[0]["objectSha256"],
            po_manifests::output::lock::object_sha256(&object)
        );
    }
    // A partner's file: two objects, a comment-only document between them, a big integer.
    std::fs::write(
        d.join("openshift/50-acme-extra.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\ndata:\n  x: \"1\"\n---\n# nothing here\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n  annotations:\n    n: \"1\"\nbinaryData: {}\nimmutable: false\nx-size: 9007199254740993\n",
    )
    .unwrap();
    let (_, report, _) = check(d, "agent");
    let problems = report["problems"].as_array().unwrap();
    let found: Vec<(&str, u64)> = problems
        .iter()
        .filter(|p| p["file"] == "openshift/50-acme-extra.yaml")
        .map(|p| (p["rule"].as_str().unwrap(), p["line"].as_u64().unwrap()))
        .collect();
    assert!(found.contains(&("type-meta", 9)), "{found:?}");
    assert!(found.contains(&("reserialized-number", 20)), "{found:?}");
    let note = problems
        .iter()
        .find(|p| p["rule"] == "one-object-per-file")
        .unwrap();
    let message = note["message"].as_str().unwrap();
    assert!(
        message.contains("3 files (50-acme-extra-0.yaml"),
        "{message}"
    );
    assert!(
        report["notes"]
            .to_string()
            .contains("/etc/assisted/extra-manifests/NAME-N.EXT"),
        "{report:#}"
    );
}
