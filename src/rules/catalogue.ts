import { ANALYSIS_RULES } from './analysis-rules';
import { COMPOSITION_RULES } from './composition-rules';
import { CONTROLLER_RULES } from './controller-rules';
import { DISRUPTION_RULES } from './disruption-rules';
import { PROBE_RULES } from './probe-rules';
import { MIGRATION_RULES } from './migration-rules';
import { ROLLOUT_RULES } from './rollout-rules';
import { SIDECAR_RULES } from './sidecar-rules';
import { RuleDefinition, RuleMeta } from './rule';
import { TRAFFIC_RULES } from './traffic-rules';

/**
 * Where a cluster finding (RW801, RW803) is an error: only on objects shown to be applied as they are
 * written. One text for both rules' rationale.
 */
const APPLIED_AS_WRITTEN =
  'Errors only on objects shown to be applied as they are written: the output ' +
  'of a kustomize render, a file a kustomization lists as a resource with no patch, generator, replacement or ' +
  'transformer in the tree (a plain gathering kustomization read file by file), a file in a folder an Argo CD ' +
  'Application syncs as a plain directory (no Helm, kustomize or plugin source, no Chart.yaml or kustomization ' +
  'there: argoproj/argo-cd v3.5.1 util/app/discovery/discovery.go AppType), a file the README beside it (or in ' +
  'the folder above), or any Markdown, reStructuredText or AsciiDoc document of the repository, runs `kubectl ' +
  'apply -f` or `kubectl create -f` on (by its path from the document or the root, a folder holding it, its ' +
  'subfolders only with --recursive, or a raw GitHub URL whose tail is its path), or a shell script, Makefile, ' +
  'Taskfile, justfile or GitHub Actions workflow `run:` step of the repository runs so (from its folder, a ' +
  "Taskfile task's dir, or a step's working-directory, default the repository root), a .yaml file in a folder " +
  'a Flux Kustomization of the scan applies from this repository with no kustomization file there and no ' +
  'patch, prefix, namespace, components or substitution in its spec (fluxcd/pkg kustomize/v1.35.4 ' +
  'kustomize/kustomize_generator.go scanManifests), or standard input (what `kubectl kustomize ... | rollwise ' +
  'lint -` pipes in). Not the render of an OLM bundle input, a kustomization whose tree ' +
  "lists a ClusterServiceVersion (operator-sdk's scaffolded config/manifests, cloudnative-pg's " +
  'config/olm-manifests): `operator-sdk generate bundle` reads that render into typed objects, dropping unknown ' +
  'fields, and writes its Deployments and webhooks into the ClusterServiceVersion that OLM installs ' +
  '(operator-framework/operator-sdk v1.42.3 internal/generate/collector/manifests.go updateFromReader, ' +
  'internal/generate/clusterserviceversion/clusterserviceversion_updaters.go), so a problem there is info whose ' +
  'message starts "if this render were applied with kubectl"; a kustomization of such a tree, not named for OLM, ' +
  'that only the bundle root or kustomizations named for OLM include (config/default under config/olm-default, ' +
  'what `make deploy` applies) is rendered on its own too and checked as applied, and a bundle object that ' +
  'render outputs alike is linted once, there. A finding on a rendered object names the render ("in the render ' +
  'of config/olm-manifests", the kustomization folder; `render` in JSON and SARIF) and, when the object\'s own ' +
  "file lacks the field, the patch of the render that adds it (judged wrong as errors on cloudnative-pg's " +
  'config/webhook/manifests.yaml, held-out set 5). Elsewhere the same problem is a warning whose message starts ' +
  '"if this file were applied as written" and says why lint cannot tell it is; info when the file also reads as ' +
  'a template another program fills in (`app.kubernetes.io/managed-by` naming an operator: a value with ' +
  '"operator" in it, or olm; deploy tools such as Helm, kustomize or Argo CD apply what they render and are no ' +
  'sign), and at most a warning where a sign is read on a file shown applied (judged wrong as errors on operator ' +
  'assets, ko:// images and patch fragments of public repositories, docs/lint-precision.md, held-out set 3). Not ' +
  'reported at all: a `ko://` image (ko resolve builds it), an empty or blank image with an ' +
  '`image.openshift.io/triggers` annotation (OpenShift sets it from the ImageStreamTag; the API server accepts " ' +
  '" in a template on purpose, kubernetes pkg/apis/core/validation/validation.go validateContainerCommon, ' +
  'openshift/origin#14659), a field a JSON 6902 patch of a parent kustomization adds to the object by its target ' +
  'selector when that kustomization was not rendered, and a Deployment, StatefulSet, DaemonSet or ReplicaSet ' +
  'without a selector whose template has no labels or a container without an image, where nothing shows it is ' +
  'applied (a patch fragment). An annotation key ending in "-" is openshift/library-go\'s deletion marker ' +
  '(pkg/operator/resource/resourcemerge/object_merger.go MergeMap): at most a warning.';

/**
 * The one gate on the error level of `rollwise lint` (src/rules/applied-gate.ts), as docs/rules.md
 * states it; each error rule's section points to it.
 */
export const ERROR_GATE =
  'Every error-level rule of `rollwise lint` (the table below; RW903 aside) reports an error only on an object, or ' +
  'for RW000 a document, whose file is shown to be applied as it is written, since only then does the consuming ' +
  'system (the API server, the Argo Rollouts controller, the Gateway API plugin, kubectl) receive exactly what ' +
  'the finding is about. What shows it: the output of a kustomize render; a file a kustomization lists as a ' +
  'resource with no patch, generator, replacement or transformer in the tree; a file in a folder an Argo CD ' +
  'Application syncs as a plain directory (argoproj/argo-cd v3.5.1 util/app/discovery/discovery.go AppType); a ' +
  'file the README beside it or in the folder above, or any Markdown, reStructuredText or AsciiDoc document of ' +
  'the repository, runs `kubectl apply -f` or `kubectl create -f` on (by its path from the document or the ' +
  'root, a folder holding it, its subfolders only with `--recursive`, kubernetes/cli-runtime v0.32.4 ' +
  'pkg/resource/visitor.go ExpandPathsToFileVisitors, or a raw GitHub URL whose tail is its path); a file a ' +
  'shell script (*.sh, *.bash), Makefile or *.mk, Taskfile, justfile or GitHub Actions workflow ' +
  '(.github/workflows, its `run:` steps) of the repository runs `kubectl apply -f` or `kubectl create -f` on, ' +
  "a relative path taken from the script's folder (and, as for documents, from the root), a Taskfile task's " +
  "`dir:`, or a workflow step's `working-directory:` (else the job's or the workflow's `defaults.run`, else the " +
  'repository root, where GitHub Actions runs steps), never through a variable, glob or loop, and not in a ' +
  'vendor/ or third_party/ folder; the evidence names the file and line; a .yaml or .yml file in a folder a ' +
  'Flux Kustomization (kustomize.toolkit.fluxcd.io/v1 or v1beta2) of the scan applies, where its sourceRef is ' +
  'this repository (the GitRepository flux-system in namespace flux-system that `flux bootstrap` creates, ' +
  'fluxcd/flux2 v2.9.4 pkg/manifestgen/sync, or a GitRepository of the scan whose url names the origin remote), ' +
  'its spec.path (inside the source root) has no kustomization file, and its spec has no targetNamespace, ' +
  'namePrefix, nameSuffix, patches, images, components, commonMetadata or postBuild: kustomize-controller then ' +
  'generates a kustomization listing every .yaml and .yml file under the path, recursively, except below a ' +
  'subfolder holding a kustomization file (fluxcd/kustomize-controller v1.9.4 ' +
  'internal/controller/kustomization_controller.go, fluxcd/pkg kustomize/v1.35.4 kustomize/kustomize_generator.go ' +
  "scanManifests; a path with a kustomization file is kustomize's render, judged by the kustomize evidence; Flux " +
  'Kustomizations under .github/, docs/, examples/ or tests are not evidence); standard input. Elsewhere (a template, a SOPS file, a fragment, an install template, a sample nothing applies) the ' +
  'finding is a warning whose message starts "if this file were applied as written: " and ends with the evidence ' +
  'looked for and not found. Objects given directly (synth, `lintObjects`, `lintText`, the cdk8s plugin) are ' +
  'not gated. RW001 carries its own evidence: it is an error only where a kustomization lists the file, and ' +
  'kustomize reads it as written and refuses it. RW903 is not gated: it is about a value rollwise itself reads, ' +
  'refused whether or not anyone applies the file. RW801 and RW803 apply the same boundary in the cluster ' +
  'stage, with info where a template sign is read.';

/** Rules the engine applies itself (input problems, suppressions, facts); no per-kind check. */
export const ENGINE_RULES = {
  malformed: {
    id: 'RW000-malformed-document',
    severity: 'error',
    title: 'A document cannot be parsed as a Kubernetes object',
    kinds: [],
    mechanism:
      'A document that does not parse is not checked at all (and kubectl would refuse the whole file), so ' +
      'every hazard in it is invisible.',
    fieldNotes:
      'docs/mechanisms.md#readiness-control-loop (a composition can only be checked when every part of it ' +
      'is read)',
    fix:
      'Fix the YAML at the reported line (indentation, unclosed brackets or quotes); the other documents of the ' +
      'file are still checked.',
    facts: [],
    upstream:
      "kubectl refuses the file: `kubectl apply -f` decodes each document with apimachinery's " +
      'YAMLToJSONDecoder (kubernetes/apimachinery v0.32.4 pkg/util/yaml/decoder.go), which returns the syntax error, ' +
      'and the StreamVisitor stops at it ("error parsing <file>", kubernetes/cli-runtime v0.32.4 ' +
      'pkg/resource/visitor.go); a mapping or list used as a key is "invalid map key" (kubernetes-sigs/yaml v1.4.0 ' +
      'goyaml.v2/decode.go), and an object without apiVersion or kind cannot be mapped to a resource. A document of ' +
      'a kind no rule checks that this parser reads more strictly than kubectl is reported as info. So is a ' +
      "document that fails only on a line holding a `{{ ... }}` or `${...}` fill-in (not Argo Rollouts' " +
      '`{{args.x}}`, which kubectl stores as written): a template another program fills in before it is applied ' +
      "(Ansible's `namespace: {{ namespace }}` in Altinity/clickhouse-operator deploy/operator, judged wrong as " +
      'errors on held-out set 9); the finding says it was not checked. A syntax error on any other line of the ' +
      'same file is still an error.',
  },
  duplicateKey: {
    id: 'RW001-duplicate-key',
    severity: 'warning',
    title: 'A mapping has the same key twice',
    kinds: [],
    mechanism:
      'kubectl reads the document and silently keeps the last value, so the first one, which a reviewer ' +
      'reads, is never applied; kustomize refuses the file ("mapping key ... already defined"), so a kustomization ' +
      'that includes it does not build (error). The same value twice changes nothing (info). The object is linted ' +
      'with the last value, as kubectl applies it.',
    fieldNotes:
      'docs/mechanisms.md#readiness-control-loop (a composition can only be checked when every part of it ' +
      'is read)',
    fix: 'Delete one of the two keys, keeping the value you mean.',
    facts: [],
    upstream:
      'kustomize v5.5.0 (kubernetes-sigs/kustomize, kyaml v0.18.1 kyaml/yaml/alias.go) decodes with ' +
      'sigs.k8s.io/yaml/goyaml.v3, whose decode.go refuses a repeated key ("mapping key %q already defined at line ' +
      '%d", kubernetes-sigs/yaml v1.4.0 goyaml.v3/decode.go); `kubectl kustomize` (v1.32.4, kustomize v5.5.0) fails ' +
      'on it, observed. kubectl apply does not: sigs.k8s.io/yaml v1.4.0 Unmarshal (goyaml.v2/decode.go setMapIndex) ' +
      "overwrites the first value unless decoding strictly, and kubectl's StreamVisitor uses the non-strict " +
      'YAMLToJSONDecoder (kubernetes/apimachinery and kubernetes/cli-runtime v0.32.4); `kubectl label --local -f` ' +
      'applies the second value, observed. So only a file a kustomization includes is an error.',
  },
  kustomizationNotRendered: {
    id: 'RW010-kustomization-not-rendered',
    severity: 'info',
    title: 'A kustomization that transforms its resources was linted file by file, not as kustomize renders it',
    kinds: [],
    mechanism:
      "A kustomization's patches, replicas, images, name prefixes and components change the objects it " +
      "includes; without the rendered result the rules see the base values (an overlay's replicas: 3 patch is not " +
      'applied) and skip the patch files. rollwise renders with `kustomize build` or `kubectl kustomize` when one is ' +
      'installed.',
    fieldNotes:
      'docs/mechanisms.md#readiness-control-loop (a composition can only be checked when every part of it ' +
      'is read)',
    fix:
      'Install kustomize or kubectl (kubectl kustomize) where lint runs, or lint the rendered output: `kubectl ' +
      'kustomize overlays/prod | rollwise lint -`.',
    facts: [],
  },
  kindSchema: {
    id: 'RW801-kind-schema',
    severity: 'error',
    title: "An object does not match its kind's OpenAPI schema (a wrong type, or a field the kind does not have)",
    kinds: [],
    mechanism:
      'The API server refuses a value of the wrong type as it decodes the object, and an unknown field ' +
      "under strict field validation (kubectl's default), or drops it silently, so a setting a reviewer reads is " +
      "never applied; a custom resource is checked against its CRD's structural schema after defaulting. Checked at " +
      'the newest Kubernetes version rollwise supports, on Kubernetes kinds of that version and the kinds of the ' +
      'pinned CRDs of Argo Rollouts, Gateway API, Envoy Gateway, Argo CD and the Prometheus operator. Not checked, ' +
      "and not reported: other kinds (another operator's resources, and files that may never reach an API server: " +
      "eksctl's ClusterConfig, kind's Cluster, a Backstage entity), a value that is an unrendered placeholder " +
      '(${VAR}, $VAR, <PROJECT_ID>, a Jinja, Ansible or Go template fill-in such as {{ ca_version }} but not Argo ' +
      "Rollouts' {{args.name}}, {Organization name}, %VAR%, [YOUR_BASE64_AK_ID] that YAML reads as a list where a " +
      'string belongs, {volume-id} that YAML reads as a map of one key with no value where a scalar belongs, ' +
      '{username} inside an image, a PROJECT_ID-style fill-in where a number or a lower-case name belongs; checked ' +
      'once substituted), the `sops` key of a document SOPS encrypted (a top-level `sops` mapping with a `mac`: the ' +
      'sops CLI and Flux decrypt it and drop the key before it is applied, fluxcd/kustomize-controller v1.9.4 ' +
      'internal/decryptor/decryptor.go isSOPSEncryptedResource, getsops/sops v3.13.2 stores/stores.go; a `kind: ' +
      "List`'s block covers its items, stores/yaml/store.go LoadEncryptedFile; plain-text fields are applied as " +
      "written and still checked), and a value in sops's exact format " +
      'ENC[AES256_GCM,data:...,iv:...,tag:...,type:...] wherever it is, with or without a `sops` block beside it ' +
      '(aes/cipher.go: ciphertext that ksops, Flux or the sops CLI decrypts first; ' +
      "thoth-station/thoth-application's SOPS-encrypted Lists of Secrets, held-out set 7; a value only like it, " +
      'without iv or tag, is still checked), kustomize patch files (fragments, not objects), a required field the ' +
      "API server defaults or accepts absent (a RoleBinding's roleRef.apiGroup, a NetworkPolicy's podSelector), " +
      "and required fields of a built-in kind's status, which the API server discards on create. Kustomize patch " +
      'files are those a kustomization of the scan lists as patches, and files beside a kustomization that it does ' +
      "not list as resources when it names them in a comment (kubebuilder's commented-out patch entries) or when " +
      "they have a patch's shape (a Deployment, StatefulSet, DaemonSet or ReplicaSet without a selector and with a " +
      'container without an image). Warnings in rollwise lint, errors in synth (which writes the objects itself): on ' +
      "a custom resource (the cluster's installed CRD may be another release or channel than the pinned one, e.g. " +
      "Gateway API's experimental channel with HTTPRoute ExternalAuth filters; the message names the CRD it was " +
      "checked against), and two items of a built-in kind's list with the same map-list key (a container's ports " +
      'with the same containerPort and protocol), which only server-side apply refuses. ' +
      APPLIED_AS_WRITTEN,
    fieldNotes: 'docs/synth.md#what-is-checked-before-anything-is-written',
    fix:
      "Give the field the type and value its kind's schema allows, or remove an unknown field (check its " +
      'spelling and indentation, and the apiVersion the field belongs to).',
    facts: [],
    upstream:
      '`kubectl apply` validates with `--validate=strict` by default ("fail the request if invalid", kubectl ' +
      'v1.32.4 `kubectl apply --help`, kubernetes/kubectl pkg/cmd/util/helpers.go AddValidateFlags), which asks the ' +
      'API server for strict server-side field validation: an unknown or duplicate field fails the request ("strict ' +
      'decoding error: unknown field"; KEP-2885, GA in Kubernetes 1.27, kubernetes/enhancements ' +
      'keps/sig-api-machinery/2885-server-side-unknown-field-validation). Schemas: the Kubernetes v1.33.0 OpenAPI ' +
      "definitions and the pinned CRDs' openAPIV3Schema (Argo Rollouts v1.9.1, Gateway API v1.6.1 standard channel, " +
      'Envoy Gateway v1.9.0, Prometheus Operator v0.93.0, Argo CD v3.5.1). Built-in kinds are decoded into their Go ' +
      'types and validated by hand-written code, not by the OpenAPI schema: a duplicate containerPort/protocol pair ' +
      'is only a warning there ("duplicate port definition with", kubernetes pkg/api/pod/warnings.go ' +
      "warningsForPodSpecAndMeta, read in the code index's copy), while server-side apply merges by the " +
      "definitions' x-kubernetes-list-map-keys and refuses duplicate keys. RoleRef.apiGroup is set to " +
      'rbac.authorization.k8s.io when empty by kubernetes pkg/apis/rbac/v1/defaults.go (SetDefaults_RoleBinding, ' +
      "SetDefaults_ClusterRoleBinding; read in the code index's copies), before validation; a built-in kind's " +
      'status is discarded on create ("create cannot set status", kubernetes ' +
      'pkg/registry/apps/statefulset/strategy.go PrepareForCreate).',
  },
  crdValidationRule: {
    id: 'RW802-crd-validation-rule',
    severity: 'error',
    title: "A custom resource breaks one of its CRD's x-kubernetes-validations (CEL) rules",
    kinds: [],
    mechanism:
      "The API server evaluates a CRD's x-kubernetes-validations rules on every create and update, after " +
      "structural defaulting; a rule that is false refuses the object with the rule's message. Checked on the kinds " +
      'of the pinned CRDs. Not checked: rules that compare with the stored object (transition rules), which do not ' +
      'apply on create, and a rule whose value holds an unrendered placeholder (${VAR}, <PROJECT_ID>), checked once ' +
      'substituted.',
    fieldNotes: 'docs/synth.md#what-is-checked-before-anything-is-written',
    fix: 'Change the value so that the rule quoted in the message holds.',
    facts: [],
    upstream:
      'k8s.io/apiextensions-apiserver v0.33.0 pkg/apiserver/schema/cel/validation.go (Validator.Validate, ' +
      "run by the CRD strategy's Validate), evaluated here with @bufbuild/cel and cel-go's strings extension as " +
      'k8s.io/apiserver v0.33.0 pkg/cel/environment/base.go declares it; the rules are those of the pinned CRDs ' +
      '(Gateway API v1.6.1, Envoy Gateway v1.9.0).',
  },
  apiServerValidation: {
    id: 'RW803-api-server-validation',
    severity: 'error',
    title: "A value the API server's built-in validation, the kubelet's image parsing or etcd's size limit refuses",
    kinds: [],
    mechanism:
      "Some rules are in the API server's code, not in any schema, and each kind picks its own. Object " +
      "names by the kind's name validator: a DNS-1123 subdomain for most kinds and for custom resources, a DNS-1035 " +
      'label for a Service, a DNS label for a Namespace and a StatefulSet, at most 52 characters for a CronJob, only ' +
      'a path segment (no "/" or "%") for RBAC roles and bindings (system:metrics-server is valid), a ' +
      'PodDisruptionBudget and the built-in kinds whose own name validator was not read. The namespace of a ' +
      'namespaced kind (a cluster-scoped one has it cleared); label and annotation syntax and the 256 KiB annotation ' +
      "total. The pod template where the kind's validation checks it (Pod, PodTemplate, ReplicationController, " +
      'Deployment, ReplicaSet, DaemonSet, Job, CronJob): container and port names, environment variable names, ' +
      'tolerations, affinity operators, volume mounts, quantities. A StatefulSet is validated without its pod spec: ' +
      "the same rules are checked on the pods its controller creates (the template's volumes plus one per " +
      "volumeClaimTemplate), which the API server refuses one by one, so no replica starts; an Argo Rollout's " +
      'template as the ReplicaSet its controller creates. Also an image reference the kubelet cannot parse (the pod ' +
      "stays in InvalidImageName) and etcd's 1.5 MiB request size. Not checked, and not reported: kinds that are " +
      "neither Kubernetes kinds nor the pinned CRDs (files that may never reach an API server: eksctl's " +
      "ClusterConfig, kind's Cluster, a Backstage entity; another operator's resources), a value that is an " +
      'unrendered placeholder (${VAR}, $VAR, <PROJECT_ID>, #{TOKEN}#, a Helm action, a Jinja, Ansible or Go template ' +
      "fill-in such as {{ ca_version }} (not Argo Rollouts' {{args.name}}, which the API server stores as written), " +
      "{Organization name}, %VAR%, a PROJECT_ID-style fill-in in a name or an image, a Secret's data value elided " +
      'with "..." such as LS0tLS1CRUdJTi... or "...base64 encoded data...", since base64 has no dots, or an ' +
      "upper-case NAME_WITH_UNDERSCORE such as CONNECTION_STRING_B64, since base64 has no underscore; Kubernetes' " +
      'own $(VAR) is not one), the ENC[AES256_GCM,...] values of a document SOPS encrypted (see RW801), and ' +
      'kustomize patch files (see RW801). ' +
      APPLIED_AS_WRITTEN,
    fieldNotes: 'docs/synth.md#what-is-checked-before-anything-is-written',
    fix: 'Correct the value as the message says.',
    facts: [],
    upstream:
      'kubernetes pkg/apis/core/validation/validation.go (ValidatePodSpec and what it calls; the name ' +
      'functions ValidatePodName, ValidateServiceName, ValidateNamespaceName, ...), ' +
      'pkg/apis/apps/validation/validation.go (ValidateStatefulSetName is NameIsDNSLabel since ' +
      "kubernetes/kubernetes#114172, 1.27; ValidatePodTemplateSpecForStatefulSet validates the template's labels " +
      'and annotations only, "TODO: Add validation for PodSpec, currently this will check volumes, which we know ' +
      'will fail"), pkg/apis/batch/validation/validation.go (ValidateCronJobCreate: at most 52), ' +
      'pkg/apis/rbac/validation/validation.go (ValidateRBACName = path.IsValidPathSegmentName), ' +
      'pkg/apis/policy/validation/validation.go (no ObjectMeta validation), ' +
      'pkg/controller/statefulset/stateful_set_utils.go (updateStorage: a volume per volumeClaimTemplate), all read ' +
      "in the code index's copies of kubernetes/kubernetes (the index names no tag; each copy is dated by its " +
      'content in src/schemas/builtin.ts, and a rule is taken as holding at 1.28.0 and 1.33.0 where an older and a ' +
      'newer copy agree or the change that made it is dated); k8s.io/apiserver v0.33.0 pkg/registry/rest/create.go ' +
      "(BeforeCreate: path.ValidatePathSegmentName for every kind, a cluster-scoped object's namespace cleared), " +
      'k8s.io/apiextensions-apiserver v0.33.0 pkg/registry/customresource/validator.go (custom resource names: ' +
      'NameIsDNSSubdomain), k8s.io/apimachinery v0.33.0 pkg/api/validation/objectmeta.go and ' +
      'pkg/util/validation/validation.go (names, labels, annotations, TotalAnnotationSizeLimitB), Argo Rollouts ' +
      'v1.9.1 rollout/sync.go (the ReplicaSet created from spec.template), the image reference grammar of ' +
      'github.com/distribution/reference as the kubelet parses it (kubernetes v1.33.0 ' +
      "pkg/kubelet/images/image_manager.go, InvalidImageName), etcd's default --max-request-bytes of 1.5 MiB; each " +
      'check in src/schemas/builtin.ts cites its function.',
  },
  suppressionWithoutReason: {
    id: 'RW901-suppression-without-reason',
    severity: 'warning',
    title: 'A rollwise.dev/suppress line has no reason',
    kinds: [],
    mechanism:
      'A suppression hides a composition hazard from every later reviewer; without the reason nobody can ' +
      'tell whether it still holds when the numbers change. The suppression is ignored, so the finding it meant to ' +
      'hide still counts at its own severity.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop (no single reviewer flags a composition)',
    fix:
      'Write one "<rule-id>: <reason>" line per suppressed rule in the rollwise.dev/suppress annotation, e.g. ' +
      '"RW201-cpu-limit-with-http-probes: batch worker, probes are tcpSocket only".',
    facts: [],
  },
  unknownSuppression: {
    id: 'RW902-suppression-unknown-rule',
    severity: 'warning',
    title: 'A rollwise.dev/suppress line names a rule that does not exist',
    kinds: [],
    mechanism:
      'A suppression for a misspelled or retired rule id suppresses nothing, while its author believes the ' +
      'hazard was reviewed.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop',
    fix: 'Use a rule id from docs/rules.md (the full id or its RWnnn prefix), or delete the line.',
    facts: [],
  },
  invalidFact: {
    id: 'RW903-invalid-fact',
    severity: 'error',
    title: 'A declared fact (rollwise.dev/... annotation or option) cannot be read',
    kinds: [],
    mechanism:
      'A fact the rules cannot read silently turns its rules off (a p99 of "fast" checks nothing), so a ' +
      'declared measurement must be a number.',
    fieldNotes: 'docs/mechanisms.md#readiness-calls-a-dependency, #keep-alive-race',
    fix:
      'Write the value in the documented format (docs/rules.md, "Facts"): seconds or requests per second as a ' +
      'positive number, "none" for keep-alive, "true"/"false" for readiness-calls-dependency.',
    facts: [],
    upstream:
      'rollwise itself consumes these annotations and refuses the value (src/rules/facts.ts FactReader); the ' +
      'rules that need the fact do not run.',
  },
} as const satisfies Record<string, RuleMeta>;

/** Every rule with a check, in catalogue order. */
export const RULES: readonly RuleDefinition[] = [
  ...PROBE_RULES,
  ...SIDECAR_RULES,
  ...COMPOSITION_RULES,
  ...ROLLOUT_RULES,
  ...MIGRATION_RULES,
  ...ANALYSIS_RULES,
  ...TRAFFIC_RULES,
  ...DISRUPTION_RULES,
  ...CONTROLLER_RULES,
];

/** Every rule id, checks and engine rules, sorted by id. */
export function allRules(): readonly RuleMeta[] {
  return [...RULES, ...Object.values(ENGINE_RULES)].sort((a, b) => a.id.localeCompare(b.id));
}

const BY_ID = new Map<string, RuleMeta>();
for (const r of allRules()) {
  BY_ID.set(r.id, r);
  BY_ID.set(r.id.split('-')[0], r);
}

/** A rule by its full id or its `RWnnn` prefix. */
export function findRule(idOrPrefix: string): RuleMeta | undefined {
  return BY_ID.get(idOrPrefix.trim());
}
