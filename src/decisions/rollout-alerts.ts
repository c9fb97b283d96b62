import { Decision } from './decision';
import { CLAIM_SKEW_SCRAPES, CLAIM_WINDOW_SECONDS, promDuration } from './alert-rule';
import { SOURCES } from './alert-sources';
import { escapeRegex, HASH_ALPHABET, MAX_HASH_LENGTH } from './generated-names';
import type { AlertRule } from './alert-rule';
import { AlertValues, ruleList } from './alert-values';

/**
 * The rollout's own state: a canary analysis that failed and aborted the release
 * (CanaryAnalysisFailed) and a rollout that is stuck or stopped for another reason
 * (RolloutDegraded), from the Argo Rollouts controller's metrics or the Deployment's condition.
 */
export function rolloutAlerts(v: AlertValues): Decision<AlertRule>[] {
  const { d, name, ns, isRollout, rsRegex } = v;
  const scrape = v.scrapeD.value;
  const [rules, add] = ruleList(v);
  if (isRollout) {
    // <rollout>-<pod-template-hash>-<revision>[-<step index>][.<N>] (argo-rollouts v1.9.1
    // rollout/analysis.go, utils/analysis/helpers.go CreateWithCollisionCounter); the hash alphabet
    // keeps out another Rollout named <name>-<word> unless its word is spelled in it (see ownRuns).
    const runRegex = `${escapeRegex(name)}-[${HASH_ALPHABET}]{1,${MAX_HASH_LENGTH}}-[0-9]+(-[0-9]+)?([.][0-9]+)?`;
    // A failed run outlives its abort: the controller keeps the last 5 unsuccessful AnalysisRuns of a
    // Rollout (utils/defaults/defaults.go DefaultAnalysisRunUnsuccessfulHistoryLimit, v1.9.1), and
    // analysis_run_info{namespace, name, phase} is 1 for every run in its informer cache, with no
    // revision or time label (controller/metrics/analysis.go collectAnalysisRuns, prommetrics.go,
    // v1.9.1). So a run claims the current abort only if the rollout has been aborted ever since the
    // run failed: any scrape in which the run was Failed while rollout_info showed another phase
    // (the next release Progressing or Paused, a retry, a revert Completed) means the abort it caused
    // ended, and a later Abort is someone else's. The run's status and the rollout's are two writes,
    // both read from informer caches at scrape time, so the scrape between them may show the run
    // Failed and the rollout not yet Abort: up to CLAIM_SKEW_SCRAPES such scrapes are tolerated. A
    // rule sees only its window back: a run that failed more than CLAIM_WINDOW_SECONDS ago claims
    // nothing, so an abort older than that is RolloutDegraded's, never an old run's.
    // The pattern alone cannot tell this Rollout's runs from another's: a Rollout named
    // <name>-<word> whose word is spelled in the hash alphabet (checkout-api-bff) and whose hash is
    // all digits has runs like checkout-api-bff-5974865-7, read as hash "bff", revision 5974865,
    // step 7. analysis_run_info carries only namespace, name and phase (prommetrics.go
    // MetricAnalysisRunInfo, v1.9.1), no Rollout. But a run's name begins with the name of the
    // ReplicaSet it analyses, <rollout>-<pod-template-hash> (newAnalysisRunFromRollout joins
    // rollout.Name, podHash and the revision; the ReplicaSet is <rollout>-<hash>, rollout/sync.go),
    // and that ReplicaSet is owned by the Rollout (NewControllerRef, kind Rollout, rollout/sync.go),
    // which kube-state-metrics exports as kube_replicaset_owner{namespace, replicaset, owner_kind,
    // owner_name} (v2.19.1 internal/store/replicaset.go; "replicasets" is in DefaultResources,
    // pkg/options/resource.go). So a run claims only if the ReplicaSet its name starts with is this
    // Rollout's: checkout-api-bff is not checkout-api's. The hash class holds no "-", so the
    // ReplicaSet part of a name is read in one way only.
    const runReplicaSet =
      `label_replace(analysis_run_info{namespace="${ns}", name=~"${runRegex}", ` +
      `phase=~"Failed|Error"}, "replicaset", "$1", "name", "(${rsRegex})-.*")`;
    const ownRuns =
      `max by (namespace, name) (${runReplicaSet} and on(namespace, replicaset) ` +
      `kube_replicaset_owner{namespace="${ns}", owner_kind="Rollout", owner_name="${name}"})`;
    const failedRuns = (offset = '') =>
      `max by (namespace, name, phase) (analysis_run_info{namespace="${ns}", ` +
      `name=~"${runRegex}", phase=~"Failed|Error"}${offset})`;
    const aborted = `max by (namespace) (rollout_info{namespace="${ns}", name="${name}", phase="Abort"})`;
    const notAborted = `max by (namespace) (rollout_info{namespace="${ns}", name="${name}", phase!="Abort"})`;
    const claimWindow = promDuration(CLAIM_WINDOW_SECONDS);
    const movedOn =
      `count_over_time((${failedRuns()} and ` +
      `on(namespace) ${notAborted})[${claimWindow}:${promDuration(scrape)}]) > ${CLAIM_SKEW_SCRAPES}`;
    const claiming =
      `(${failedRuns()} unless ${failedRuns(` offset ${claimWindow}`)}) unless on(namespace, name, ` +
      `phase) (${movedOn})`;
    const analysisFailed = `(${claiming} and on(namespace, name) ${ownRuns}) and on(namespace) ${aborted}`;
    add(
      {
        alert: 'CanaryAnalysisFailed',
        mechanism: 'canary-analysis',
        severity: 'warning',
        expr: analysisFailed,
        for: promDuration(2 * scrape),
        summary:
          `${name}: canary analysis {{ $labels.name }} {{ $labels.phase }} and aborted the rollout (stable ` +
          'still serves)',
        description:
          `AnalysisRun ${ns}/{{ $labels.name }} ended {{ $labels.phase }} and Rollout ${ns}/${name} is ` +
          'aborted: canary weight is back to 0 and the stable version serves. Argo CD shows the app Degraded until Git ' +
          'changes; the rollback is a git revert (docs/mechanisms.md#canary-analysis, #gitops-rollback).',
        meaning:
          'The canary analysis measured the new version failing (Failed) or could not measure it (Error) and ' +
          'aborted the rollout: the canary gets no traffic, stable serves (docs/mechanisms.md#canary-analysis). The ' +
          'bad version is still what Git declares, so the app stays Degraded until Git changes.',
        checkFirst: [
          `\`kubectl argo rollouts get rollout ${name} -n ${ns}\` and \`kubectl -n ${ns} describe analysisrun ` +
            `<name>\`: which metric, which measured value.`,
          'Error (not Failed) means the query returned nothing or NaN: check the analysis query, not the app.',
          'Roll back with `git revert` of the release commit; do not `kubectl argo rollouts undo` (self-heal ' +
            're-applies Git, docs/mechanisms.md#gitops-rollback).',
        ],
      },
      `${SOURCES.analysisRunInfo} in phase Failed or Error for a run of Rollout ${name}, ` +
        `while ${SOURCES.rolloutInfo} says phase Abort, and only a run that caused this abort: Argo Rollouts keeps ` +
        'the last 5 unsuccessful runs (utils/defaults/defaults.go, v1.9.1), so a run of an older release stays ' +
        'Failed in the metrics and would otherwise claim a later abort by hand. A run claims the abort when the ' +
        `rollout has been in Abort ever since the run failed: if the ${claimWindow} subquery at the ${scrape} s ` +
        `scrape step finds more than ${CLAIM_SKEW_SCRAPES} scrapes with the run Failed and the rollout in another ` +
        'phase (the next release progressing, a retry, a revert), the abort the run caused is over; up ' +
        `to ${CLAIM_SKEW_SCRAPES} are the moment between the run's status write and the rollout's. A run claims only ` +
        `if the ReplicaSet its name begins with, <name>-<pod-template-hash>, is owned by Rollout ${name} ` +
        `(${SOURCES.replicaSetOwner}): the name pattern alone also matches runs of a Rollout named ${name}-<word> ` +
        `whose word is spelled in the hash alphabet (e.g. ${name}-bff-5974865-7, read as hash "bff"); without ` +
        `kube-state-metrics' replicasets the abort is reported by RolloutDegraded instead. A run whose Failed series ` +
        `already existed ${claimWindow} ago claims nothing, because the rule cannot see further back: a ` +
        `failed-analysis abort left for over ${claimWindow} is reported by RolloutDegraded from then on. ` +
        `for ${promDuration(2 * scrape)} (two scrapes).`,
      { forSeconds: 2 * scrape, claimWindowSeconds: CLAIM_WINDOW_SECONDS, claimSkewScrapes: CLAIM_SKEW_SCRAPES },
    );

    add(
      {
        alert: 'RolloutDegraded',
        mechanism: 'rollout-degraded',
        severity: 'warning',
        expr:
          `max by (namespace, name, phase) (rollout_info{namespace="${ns}", name="${name}", ` +
          `phase=~"Abort|Timeout|Error|InvalidSpec"}) unless on(namespace) (${analysisFailed})`,
        for: promDuration(2 * scrape),
        summary: `${name}: rollout {{ $labels.phase }} (Argo CD shows Degraded)`,
        description:
          `Rollout ${ns}/${name} is in phase {{ $labels.phase }}: Abort (aborted by hand, or by a failed ` +
          `analysis over ${claimWindow} ago), Timeout (progress deadline exceeded: a new pod never became available), ` +
          'Error (ReplicaSet or Service missing) or InvalidSpec (the controller rejected the spec; there is no ' +
          'admission webhook).',
        meaning:
          'The rollout is stuck or stopped for a reason other than a fresh failed analysis: a new pod never ' +
          'became available within progressDeadlineSeconds (Timeout), someone aborted it (a failed run of an earlier ' +
          'release, still kept in the run history, does not claim this abort), a referenced Service is missing ' +
          '(Error), or the spec is invalid (InvalidSpec, only visible at reconcile time). An abort by a failed ' +
          `analysis that has lasted over ${claimWindow} is shown here too.`,
        checkFirst: [
          `\`kubectl argo rollouts get rollout ${name} -n ${ns}\`: the message names the condition.`,
          "Timeout: the new pods' readiness events (a broken image stalls here by design, maxUnavailable 0).",
          'Fix forward or `git revert` in Git; an in-place undo is reverted by self-heal ' +
            '(docs/mechanisms.md#gitops-rollback).',
        ],
      },
      `${SOURCES.rolloutInfo}: the phases Argo CD shows as Degraded (Abort, Timeout = ProgressDeadlineExceeded, ` +
        `InvalidSpec) plus Error; an abort a failed run claims (CanaryAnalysisFailed's expression, which leaves out ` +
        'runs of earlier releases) is left to CanaryAnalysisFailed so one incident pages once. ' +
        `for ${promDuration(2 * scrape)} (two scrapes) so a phase seen in one reconcile does not fire.`,
      { forSeconds: 2 * scrape },
    );
  } else {
    add(
      {
        alert: 'RolloutDegraded',
        mechanism: 'rollout-degraded',
        severity: 'warning',
        expr:
          `max by (namespace, deployment) (kube_deployment_status_condition{namespace="${ns}", ` +
          `deployment="${name}", condition="Progressing", status="false"}) == 1`,
        for: promDuration(2 * scrape),
        summary: `${name}: rollout exceeded its progress deadline (Deployment Progressing=False)`,
        description:
          `Deployment ${ns}/${name} has Progressing=False: a new pod did not become available within ` +
          `progressDeadlineSeconds (${d.rollout.progressDeadlineSeconds.value} s). With maxUnavailable 0 the old pods ` +
          'keep serving (docs/mechanisms.md#rollout-complete).',
        meaning:
          'A new pod did not become available within progressDeadlineSeconds ' +
          `(${d.rollout.progressDeadlineSeconds.value} s): with maxUnavailable 0 the rollout stalls instead of ` +
          'completing while pods flap (docs/mechanisms.md#rollout-complete). The old pods keep serving.',
        checkFirst: [
          `\`kubectl -n ${ns} rollout status deployment/${name}\` and the new pods' readiness events.`,
          'Roll back with `git revert`; `kubectl rollout undo` is reverted by Argo CD self-heal ' +
            '(docs/mechanisms.md#gitops-rollback).',
        ],
      },
      `${SOURCES.deploymentCondition}: the Deployment controller sets Progressing=False (ProgressDeadlineExceeded) ` +
        `when the deadline passes. for ${promDuration(2 * scrape)} (two scrapes).`,
      { forSeconds: 2 * scrape },
    );
  }
  return rules;
}
