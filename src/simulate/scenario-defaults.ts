/** The scenario defaults, each with its reason. */
import type { ProbeSettings } from './scenario-types';

export const DEFAULTS = {
  /** Fixed seed so a scenario without one is still reproducible. */
  seed: 1,
  /** Ten minutes covers a drain plus several readiness periods and back-offs. */
  durationSeconds: 600,
  /** 100 ms: the CFS period and well below any probe period or timeout (>= 1 s). */
  stepSeconds: 0.1,
  /** One sample per second in the time series: resolution of a Prometheus scrape at best. */
  sampleSeconds: 1,
  /** Kubernetes probe defaults (reference.md): period 10 s, timeout 1 s, failure 3, success 1. */
  probe: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 } as ProbeSettings,
  /** docs/mechanisms.md#readiness-control-loop: "answers in 20 ms on an idle pod". */
  healthSeconds: 0.02,
  /**
   * Without a limit a Burstable container gets at least its request (cpu.shares)
   * and can use idle node CPU above it; we assume as much idle CPU as the
   * request (a node at ~50 % CPU use at peak). Override with what you measured.
   */
  burstFactor: 2,
  /**
   * kubelet status -> API server -> EndpointSlice controller -> kube-proxy
   * (minSyncPeriod 1 s) / gateway xDS push: docs/mechanisms.md#readiness-control-loop says "seconds".
   */
  propagationSeconds: 2,
  /** Envoy's default route timeout is 15 s: a request queued longer gets a 504 (UT). */
  requestTimeoutSeconds: 15,
  /** Image already on the node, process boot of a few seconds; set it from your start-up measurements. */
  startSeconds: 5,
  /** Kubernetes Deployment defaults (reference.md): maxSurge 25 %, maxUnavailable 25 %, minReadySeconds 0. */
  rollout: { maxSurge: '25%', maxUnavailable: '25%', minReadySeconds: 0 },
  /** A 99.9 % availability objective, the common default for an HTTP service. */
  errorBudget: 0.001,
};
