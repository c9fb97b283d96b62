import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import * as YAML from 'yaml';
import { checkCatalog, CatalogProps } from '../decisions/catalog';
import { RollwiseInputError } from '../errors';
import { addOutputFile } from '../synth/output';
import { registerRenderCheck } from '../synth/render-checks';
import { ArgoCdApplication, SERVICE_LABEL } from './argo-cd-application';
import { HttpService } from './http-service';
import { selectorLabels } from './pod-template';

export interface CatalogInfoProps extends CatalogProps {
  /** The service the entity describes. */
  readonly service: HttpService;
  /**
   * The service's Argo CD Applications (one per environment), for the Argo CD plugin and links.
   * @default none
   */
  readonly applications?: ArgoCdApplication[];
}

/**
 * A Backstage catalog entity (`<service>.catalog-info.yaml`, beside the chart's manifests) for one
 * service. Create it in the service's own chart, the `chart` that addEstate's perService receives
 * (`new CatalogInfo(chart, 'catalog', { service, ... })`; with your own charts, the chart of the
 * HttpService): the file is written to that chart's folder (`dist/prod/`), where the service's
 * Application applies only `<service>.k8s.yaml`. In the Applications' chart (`dist/argocd/<env>/`,
 * applied with kubectl or an app of apps) it would be applied as a Kubernetes object and fail, so
 * that is refused at synth. The entity is: a Component with its owner, links to its runbook and its Argo CD
 * Applications, and the
 * annotations that Backstage's Kubernetes plugin and Roadie's Argo CD plugin read:
 * - `backstage.io/kubernetes-label-selector` (the service's selector label; it takes precedence over
 *   backstage.io/kubernetes-id, so no label has to be added to the objects) and
 *   `backstage.io/kubernetes-namespace` (backstage/backstage plugins/kubernetes-common/src/
 *   catalog-entity-constants.ts; docs/features/kubernetes/configuration.md "Surfacing your
 *   Kubernetes components as part of an entity");
 * - `argocd/app-name` for one Application, `argocd/app-selector` (a label selector) for several
 *   (RoadieHQ/roadie-backstage-plugins plugins/frontend/backstage-plugin-argo-cd/src/components/
 *   useArgoCDAppData.ts ARGOCD_ANNOTATION_APP_NAME, ARGOCD_ANNOTATION_APP_SELECTOR).
 * Validated in the tests with @backstage/catalog-model's own validators.
 */
export class CatalogInfo extends Construct {
  /** The entity, as written. */
  public readonly entity: Record<string, unknown>;
  /** The file, relative to the chart's output folder. */
  public readonly file: string;

  /**
   * @param scope the service's chart (addEstate's perService `chart`), or a construct in it
   */
  constructor(scope: Construct, id: string, props: CatalogInfoProps) {
    super(scope, id);
    const c = checkCatalog(props);
    const svc = props.service;
    if (!(svc instanceof HttpService))
      throw new RollwiseInputError(
        'service',
        String(svc),
        'must be the HttpService the entity describes.',
        "pass service: the HttpService (e.g. the one addEstate's perService receives).",
      );
    const apps = (props.applications ?? []).map(
      (a) => a.application.toJson() as { metadata: { name: string; namespace?: string } },
    );
    const selector = Object.entries(selectorLabels(svc.name))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const annotations: Record<string, string> = { 'backstage.io/kubernetes-label-selector': selector };
    if (svc.namespace) annotations['backstage.io/kubernetes-namespace'] = svc.namespace;
    if (apps.length === 1) annotations['argocd/app-name'] = apps[0].metadata.name;
    if (apps.length > 1) annotations['argocd/app-selector'] = `${SERVICE_LABEL}=${svc.name}`;
    const links: { url: string; title: string; icon?: string }[] = [];
    const runbook =
      svc.alerts && svc.platform.runbookBaseUrl ? `${svc.platform.runbookBaseUrl}/${svc.name}.runbook.md` : undefined;
    if (runbook)
      links.push({ url: runbook, title: `Runbook${svc.namespace ? ` (${svc.namespace})` : ''}`, icon: 'docs' });
    if (c.argoCdUrl) {
      for (const a of apps)
        links.push({
          url: `${c.argoCdUrl.replace(/\/+$/, '')}/applications/${a.metadata.namespace ?? 'argocd'}/${a.metadata.name}`,
          title: `Argo CD: ${a.metadata.name}`,
          icon: 'dashboard',
        });
    }
    this.entity = {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: {
        name: svc.name,
        ...(c.description ? { description: c.description } : {}),
        annotations,
        ...(links.length ? { links } : {}),
      },
      spec: {
        type: 'service',
        lifecycle: c.lifecycle ?? 'production',
        owner: c.owner,
        ...(c.system ? { system: c.system } : {}),
      },
    };
    this.file = `${svc.name}.catalog-info.yaml`;
    // Not beside the Argo CD Applications: that folder is applied as it is (kubectl apply -f, or an
    // app of apps), and a Backstage entity is no Kubernetes object.
    registerRenderCheck(this, () => {
      const chart = Chart.of(this);
      const apps = chart.node
        .findAll()
        .filter((c) => c instanceof ArgoCdApplication)
        .map((c) => c.node.path);
      const names = apps.join(', ');
      return apps.length === 0
        ? []
        : [
            `CatalogInfo ${svc.name}: it is in chart ${chart.node.path}, which holds the ` +
              `Argo CD Application(s) ${names}, so ${this.file} would be written beside them and applied with ` +
              'them as a Kubernetes object (kubectl apply -f of that folder, or an app of apps), which fails: a Backstage ' +
              `entity is no Kubernetes object. Fix: create it in the service's own chart, the \`chart\` addEstate's ` +
              `perService receives (new CatalogInfo(chart, 'catalog', { service, ... })), where the service's Application ` +
              `applies only ${svc.name}.k8s.yaml.`,
          ];
    });
    addOutputFile(
      this,
      this.file,
      `# Backstage catalog entity of ${svc.name}, written by rollwise synth: register this file's URL in\n# ` +
        `Backstage (catalog.locations or "Register existing component").\n${YAML.stringify(this.entity)}`,
    );
  }
}
