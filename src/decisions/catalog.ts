import { RollwiseInputError } from '../errors';

/**
 * What Backstage's software catalog needs to know of a service beyond what rollwise emits: who
 * owns it, the system it belongs to, its lifecycle, and where Argo CD's web UI is. Every prop of
 * `catalog` is declared here.
 */
export interface CatalogProps {
  /** The owning team or user, an entity reference as Backstage takes it ("team-shop", "group:shop"). */
  readonly owner: string;
  /**
   * The system the service is part of.
   * @default none
   */
  readonly system?: string;
  /**
   * The service's lifecycle stage.
   * @default 'production'
   */
  readonly lifecycle?: string;
  /**
   * One line on what the service does.
   * @default none
   */
  readonly description?: string;
  /**
   * The base URL of Argo CD's web UI, for a link to each Application ("https://argocd.example.com").
   * @default none: no link (Backstage's Argo CD plugin still finds the Applications by the annotation)
   */
  readonly argoCdUrl?: string;
}

/**
 * Backstage's entity name rule (@backstage/catalog-model 1.10.3 KubernetesValidatorFunctions.isValidObjectName, used by
 * FieldFormatEntityPolicy): 1-63 characters of [a-zA-Z0-9], "-", "_", ".", starting and ending
 * alphanumeric. Entity references may carry a "kind:" and "namespace/" prefix.
 */
const NAME = /^[A-Za-z0-9]([-_.A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;
const REF =
  /^([A-Za-z]+:)?([A-Za-z0-9]([-_.A-Za-z0-9]{0,61}[A-Za-z0-9])?\/)?[A-Za-z0-9]([-_.A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

export function checkCatalog(c: CatalogProps): CatalogProps {
  if (typeof c !== 'object' || c === null)
    throw new RollwiseInputError(
      'catalog',
      c,
      'must be an object with at least the owner.',
      "pass catalog: { owner: 'team-shop' }.",
    );
  if (typeof c.owner !== 'string' || !REF.test(c.owner))
    throw new RollwiseInputError(
      'catalog.owner',
      c.owner ?? null,
      'is not a Backstage entity reference (a name of letters, digits, "-", "_", ".", optionally "group:" or ' +
        '"namespace/" in front): the catalog refuses the entity.',
      "use the owning group's name, e.g. 'team-shop' or 'group:default/team-shop'.",
    );
  if (c.system !== undefined && (typeof c.system !== 'string' || !REF.test(c.system)))
    throw new RollwiseInputError(
      'catalog.system',
      c.system,
      'is not a Backstage entity reference.',
      "use the system's name, e.g. 'shop'.",
    );
  if (c.lifecycle !== undefined && (typeof c.lifecycle !== 'string' || !NAME.test(c.lifecycle))) {
    throw new RollwiseInputError(
      'catalog.lifecycle',
      c.lifecycle,
      'is not a lifecycle name Backstage accepts.',
      "use e.g. 'production' or 'experimental'.",
    );
  }
  if (c.argoCdUrl !== undefined && !/^https?:\/\/[^\s#?]+$/.test(c.argoCdUrl))
    throw new RollwiseInputError(
      'catalog.argoCdUrl',
      c.argoCdUrl,
      'must be the http(s) base URL of the Argo CD web UI, without a query or fragment.',
      "use e.g. 'https://argocd.example.com'.",
    );
  return c;
}
