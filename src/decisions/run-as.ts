// The user and group the app runs as (container.runAs), and the check of a sidecar's user.
import { RunAs } from './pod-extras-props';
import { checkInteger } from './inputs';
import { decided, Decision } from './decision';

/** The uid distroless and Chainguard images name "nonroot". */
export const DEFAULT_UID = 65532;

/**
 * The numeric user. kubernetes/kubernetes pkg/kubelet/kuberuntime/security_context_others.go
 * verifyRunAsNonRoot: with runAsNonRoot and no runAsUser, an image user that is a name fails
 * ("image has non-numeric user"), and uid 0 fails; a non-zero runAsUser passes whatever the image says.
 */
export function decideRunAs(runAs: RunAs | undefined): Decision<{ user: number; group: number }> {
  const why =
    'with runAsNonRoot alone, the kubelet refuses to start an image whose USER is root or a name, such as ' +
    'the official node and python images ("container has runAsNonRoot and image has non-numeric user", ' +
    'CreateContainerConfigError; kubelet verifyRunAsNonRoot); a numeric user passes that check whatever the image ' +
    'declares';
  if (runAs === undefined) {
    return decided(
      { user: DEFAULT_UID, group: DEFAULT_UID },
      `Not given (container.runAs), so ${DEFAULT_UID}, the "nonroot" user of distroless images: ${why}. Set ` +
        `container.runAs to the uid your image's files belong to (official node images: 1000).`,
      { runAsUser: DEFAULT_UID },
    );
  }
  const user = checkUser('container.runAs.user', runAs.user);
  const group =
    runAs.group === undefined
      ? user
      : checkInteger(
          'container.runAs.group',
          runAs.group,
          0,
          2147483647,
          'a group id is a whole number the kernel checks file access against.',
          "give the gid your image's files belong to, e.g. 1000.",
        );
  return decided({ user, group }, `Input (container.runAs): user ${user}, group ${group}: ${why}.`, {
    runAsUser: user,
    runAsGroup: group,
  });
}

export function checkUser(input: string, v: number): number {
  return checkInteger(
    input,
    v,
    1,
    2147483647,
    'runAsNonRoot refuses user 0 (root) and the kubelet accepts user ids from 1 to 2^31-1.',
    'give the numeric uid your image runs as (distroless: 65532, official node images: 1000).',
  );
}
